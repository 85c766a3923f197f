"""What an import says when it cannot do what was asked (issue 36): a database without
its indexes, a file cut short after batches were written, a thread deleted in the
source, refused records named by line and id."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from comments.management.commands.import_comments import NO_INDEXES
from comments.stores import get_store
from infra import mongo

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "imports"
EXPORT = FIXTURES / "disqus-export.xml"
ON_HELLO = {"2001", "2002", "2003", "2004", "2005", "2010", "2011"}


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_comments", "--format", "disqus", "--no-progress", *args, stdout=out)
    return out.getvalue()


def imported(post) -> dict[str, dict]:
    return {d["imported"]["id"]: d for d in get_store().iter_documents(discussion_id=post.id)}


@pytest.fixture
def fresh_database(settings, mongo_db):
    """The site switched to a database in which no index was ever made, dropped after."""
    settings.MONGODB_NAME = f"{mongo_db.name}_fresh"
    yield mongo.get_db()
    mongo.get_client().drop_database(settings.MONGODB_NAME)


# --- A database whose indexes were never made (item 26) -----------------------------------


@pytest.mark.usefixtures("each_store")
def test_an_import_into_a_database_without_indexes_makes_them_first(fresh_database, make_post):
    """It used to write a first batch, then stop with a traceback ("index specified by
    index hint is not found"); now every comment goes in."""
    hello, _ = make_post(slug="hello-world"), make_post(slug="second-post")
    assert fresh_database.list_collection_names() == ["posts"] and len(fresh_database.posts.index_information()) == 1
    out = run("--batch-size", "2", str(EXPORT))
    assert "Comments: 8 imported" in out and set(imported(hello)) == ON_HELLO
    assert len(fresh_database.posts.index_information()) > 1


def test_a_database_that_refuses_the_indexes_stops_the_import_before_any_write(fresh_database, make_post):
    hello = make_post(slug="hello-world")
    fresh_database.posts.create_index("title", name="status_published")  # a name the site uses for other keys
    with pytest.raises(CommandError, match=NO_INDEXES.split("(")[0]):
        run(str(EXPORT))
    assert imported(hello) == {} and fresh_database.comment_imports.count_documents({}) == 0
