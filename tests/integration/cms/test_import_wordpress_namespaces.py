"""A WordPress export's namespaces written with https:// (WordPress.com's exports)
import as the http:// ones do, and a file that yields no post stops the run loudly
(issue 36, item 25; a Disqus file with no post: test_import_outcomes.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cms import posts
from cms.wxr import importer, parse
from comments.stores import get_store
from comments.transfer import import_records

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "imports"
HTTPS = FIXTURES / "wordpress-com-https.xml"
# What wordpress-blog.xml's swifts post takes (tests/integration/cms/test_import_wordpress.py).
IMPORTED_IDS = {"101", "102", "103", "104", "105", "106", "107", "110", "111", "112"}


def command(*args: str) -> str:
    out = io.StringIO()
    call_command("import_comments", "--no-progress", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.2"])
@pytest.mark.parametrize("scheme", ["http", "https"])
def test_every_wxr_namespace_is_read_in_either_scheme(scheme, version):
    assert parse._key(f"{{{scheme}://wordpress.org/export/{version}/}}post_type") == "wp:post_type"
    assert parse._key(f"{{{scheme}://wordpress.org/export/{version}/excerpt/}}encoded") == "excerpt:encoded"
    assert parse._key(f"{{{scheme}://purl.org/rss/1.0/modules/content/}}encoded") == "content:encoded"
    assert parse._key(f"{{{scheme}://purl.org/dc/elements/1.1/}}creator") == "dc:creator"


def test_an_export_in_https_namespaces_reads_its_posts_and_comments():
    with open(HTTPS, "rb") as stream:
        items = list(parse.iter_items(stream))
    assert [(i.post_type, i.post_name) for i in items][:2] == [("post", "swifts-over-the-harbour"),
                                                                ("post", "")]
    assert len(items[0].comments) == 12 and items[0].creator == "margit"


@pytest.mark.usefixtures("db")
def test_a_wordpress_com_export_in_https_namespaces_imports_its_posts_and_comments():
    """It used to import nothing and exit 0 ("skipped: 4 untyped items")."""
    out = command("--format", "wordpress", str(HTTPS))
    assert "Posts: 2 created, 0 already here." in out and "untyped" not in out
    swifts = posts.get_by_slug("swifts-over-the-harbour")
    assert swifts.tags == ("Birds", "swifts", "Field trips") and swifts.excerpt == "The swifts are back."
    stored = {d["imported"]["id"] for d in get_store().iter_documents(discussion_id=swifts.id)}
    assert stored == IMPORTED_IDS


@pytest.mark.usefixtures("db")
def test_a_file_that_yields_no_post_stops_the_command_with_an_error(tmp_path):
    """An RSS feed with items in no WordPress namespace: the summary, then an error
    naming what was skipped (a non-zero exit), not a quiet success."""
    feed = tmp_path / "feed.xml"
    feed.write_text('<?xml version="1.0"?><rss version="2.0" xmlns:wp="https://example.org/export/1.2/">'
                    "<channel><item><title>A</title><wp:post_type>post</wp:post_type></item>"
                    "<item><title>B</title></item></channel></rss>\n", encoding="utf-8")
    expected = importer.NO_POSTS.format(skipped=" (skipped: 2 untyped items)")
    with pytest.raises(CommandError) as refused:
        command("--format", "wordpress", str(feed))
    assert str(refused.value) == expected
    with pytest.raises(import_records.EmptySource):
        importer.run(path=str(feed), stdout=io.StringIO(), progress=False)
