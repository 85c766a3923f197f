"""A WordPress blog author's own replies (cms/wxr/records.py's `export_author`): the run
makes her an author, which reserves her name, and her replies keep it and are stored as
hers, whether the export ties them to her by her user id or, for a reply sent logged out
or through an app (user id 0), by her e-mail address; under her display name (in any
order) or login. A visitor, or another author, signing as her is refused."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cms import authors, posts
from cms.wxr import importer
from comments.posting import commenters
from comments.stores import get_store

EXPORT = Path(__file__).resolve().parents[2] / "fixtures" / "imports" / "wordpress-author-replies.xml"


def stored(post: posts.Post) -> dict[str, tuple[str, int | None]]:
    """The post's comments by their WordPress id: (name, author id)."""
    return {d["imported"]["id"]: (d["author"]["name"], d["author"]["id"])
            for d in get_store().iter_documents(discussion_id=post.id)}


@pytest.mark.django_db
def test_the_blog_authors_own_replies_are_hers_and_others_signing_as_her_are_refused(make_post):
    make_post()  # a post by Ada Lindqvist, this site's author
    out = io.StringIO()
    outcome = importer.run(path=str(EXPORT), stdout=out, progress=False)
    margit = authors.find_author(username="margit")
    assert margit is not None and outcome.authors_created == ["margit"]
    assert stored(posts.get_by_slug("swifts-over-the-harbour")) == {
        "301": ("Ines", None),
        "302": ("Margit Halvorsen", margit.pk),  # her user id
        "303": ("Margit Halvorsen", margit.pk),  # user id 0, her address in another case
        "304": ("margit", margit.pk),  # her login
        "305": ("Halvorsen, Margit", margit.pk),  # her name reordered, her user id
    }
    # 306 a visitor, 307 the other author (user 2) with her address, 308 her own user id
    # under this site's author's name.
    assert outcome.report.refused == {commenters.RESERVED_NAME: 3}
    assert f"refused: 3 {commenters.RESERVED_NAME}" in out.getvalue()

