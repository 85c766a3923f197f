"""Which library pictures a post shows (media/references.py), read from what the post
renders: every spelling that shows or links a picture counts, and nothing that does
not. Pure: the renderer, no database."""

import pytest
from django.conf import settings

from media import references

KEY = "0123456789abcdef" * 2
OTHER = "fedcba9876543210" * 2

SHOWN = {
    "title in double quotes": f'![Boats](/media/{KEY}/ "At dawn")',
    "title in single quotes": f"![Boats](/media/{KEY}/ 'At dawn')",
    "title in parentheses": f"![Boats](/media/{KEY}/ (At dawn))",
    "reference-style": f"![Boats][harbour]\n\n[harbour]: /media/{KEY}/ \"At dawn\"",
    "collapsed reference": f"![Boats][]\n\n[boats]: /media/{KEY}/",
    "shortcut reference": f"![Boats]\n\n[Boats]: </media/{KEY}/>",
    "raw img": f'<img src="/media/{KEY}/" alt="Boats">',
    "raw img inline": f'Look: <img alt="Boats" src="/media/{KEY}/640.webp"> here.',
    "destination in angle brackets": f"![Boats](</media/{KEY}/>)",
    "query string": f"![Boats](/media/{KEY}/?v=2)",
    "fragment": f"![Boats](/media/{KEY}/#top)",
    "absolute address": f"![Boats]({settings.SITE_URL}/media/{KEY}/)",
    "an allowed host over https": f"![Boats](https://localhost/media/{KEY}/)",
    "protocol-relative": f"![Boats](//127.0.0.1:8000/media/{KEY}/)",
    "rendition address": f"![Boats](/media/{KEY}/640.webp)",
    "absolute rendition address": f"![Boats]({settings.SITE_URL}/media/{KEY}/1600.jpg)",
    "relative address": f"![Boats](../../media/{KEY}/)",
    "no trailing slash": f"![Boats](/media/{KEY})",
    "percent-encoded": f"![Boats](/%6Dedia/{KEY}/)",
    "a link to it": f"[the big one](/media/{KEY}/1600.jpg)",
    "an autolink": f"<{settings.SITE_URL}/media/{KEY}/>",
    "a raw link": f'<a href="/media/{KEY}/">the picture</a>',
    "inside emphasis": f"*![Boats](/media/{KEY}/)*",
    "in a list": f"- one\n- ![Boats](/media/{KEY}/)",
    "in a table": f"| a |\n| - |\n| ![Boats](/media/{KEY}/) |",
}

NOT_SHOWN = {
    "another site": f"![Boats](https://example.com/media/{KEY}/)",
    "a code span": f"`![Boats](/media/{KEY}/)`",
    "a code block": f"    ![Boats](/media/{KEY}/)",
    "an HTML comment": f"<!-- ![Boats](/media/{KEY}/) -->",
    "plain text": f"The address is /media/{KEY}/ (not a link).",
    "another path": f"![Boats](/static/{KEY}/)",
    "an unsafe scheme": f"![Boats](javascript:/media/{KEY}/)",
}


@pytest.mark.parametrize("text", SHOWN.values(), ids=SHOWN.keys())
def test_every_spelling_that_shows_or_links_a_picture_counts(text):
    assert references.keys_in(text) == [KEY]


@pytest.mark.parametrize("text", NOT_SHOWN.values(), ids=NOT_SHOWN.keys())
def test_what_shows_no_library_picture_counts_none(text):
    assert references.keys_in(text) == []


def test_images_are_found_with_their_alt_text_and_links_are_not_images():
    text = (f"![Boats](/media/{KEY}/ 'At dawn') [see](/media/{OTHER}/)\n\n"
            f'<img src="/media/{OTHER}/320.jpg" alt=" Gulls &amp; boats ">')
    assert references.referenced(text) == [(KEY, "Boats"), (OTHER, "Gulls & boats")]
    assert references.keys_in(text) == [KEY, OTHER]


def test_a_picture_markdown_shows_as_a_link_counts_as_linked_not_shown():
    """cmark-gfm reads `![^` as a footnote: the reader gets a link, not an image."""
    text = f"![^x](/media/{KEY}/)"
    assert references.referenced(text) == [] and references.keys_in(text) == [KEY]
