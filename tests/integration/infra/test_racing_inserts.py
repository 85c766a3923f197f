"""Writers racing to insert one key of a unique secondary index (infra/racing_inserts.py)
against the development server, where such racers abort each other as deadlocks: one
insert lands and every other racer hears that the key is taken, as on MongoDB."""

from __future__ import annotations

from datetime import UTC, datetime

from bson import ObjectId

from comments.records import CommentAuthor, SlugTaken
from comments.stores import get_store
from tests.threads import at_once, split

RACERS = 8
ROUNDS = 6


def test_one_form_inserted_by_eight_writers_at_once_is_one_comment_and_seven_slugs_taken(mongo_db, settings):
    """The documents store's insert, raced eight ways on one slug (a form sent eight
    times at once), six times over: one comment each time, SlugTaken for the others."""
    settings.COMMENTS_STORE = "documents"
    store = get_store("documents")
    store.ensure_indexes(mongo_db)
    author = CommentAuthor(id=None, name="Rosa")
    for _ in range(ROUNDS):
        discussion_id = ObjectId()
        results, errors = split(at_once([
            lambda: store.insert_comment(discussion_id=discussion_id, parent=None, slug="same", full_slug="same",
                                         posted=datetime.now(UTC), author=author, text="Once", html="<p>Once</p>")
            for _ in range(RACERS)
        ]))
        assert len(results) == 1 and [type(e) for e in errors] == [SlugTaken] * (RACERS - 1), errors
        assert mongo_db.comments.count_documents({"discussion_id": discussion_id}) == 1
