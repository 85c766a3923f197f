"""The comments pages a reader can land on from a search or a shared link have one
`<h1>` naming the post, as every other page of the site does (issue 25)."""

import re

from tests.page_reading import discussion_url


def test_the_discussion_page_has_one_h1_naming_and_linking_the_post(client, make_post, make_comment):
    post = make_post(title="On swifts")
    make_comment(post, text="First")
    for url in (discussion_url(post), discussion_url(post) + "?view=newest"):
        html = client.get(url).content.decode()
        headings = re.findall(r"<h1[^>]*>(.*?)</h1>", html, re.S)
        assert len(headings) == 1, url
        assert "On swifts" in headings[0] and f'href="{post.get_absolute_url()}"' in headings[0]
