"""Every answer whose language the reader's cookie can choose says `Vary: Cookie` as
well as `Vary: Accept-Language`, so a shared cache never hands one reader's language
to another: the pages (which read the session, and so vary by it anyway), and the
feeds, robots.txt and error pages, which do not (issue 25)."""

import pytest

from cms import posts

COOKIE = "django_language"


def varies_by(response) -> set[str]:
    return {value.strip().lower() for value in response.get("Vary", "").split(",") if value.strip()}


@pytest.mark.parametrize("url", [
    "/", "/search/?q=x", "/tags/swifts/", "/posts/on-swifts/", "/posts/no-such-post/", "/no-such-page/",
    "/feeds/latest/rss/", "/feeds/latest/atom/", "/feeds/tags/swifts/rss/", "/feeds/tags/swifts/atom/",
    "/feeds/posts/on-swifts/comments/rss/", "/feeds/posts/on-swifts/comments/atom/", "/robots.txt",
])
def test_an_answer_in_the_cookies_language_varies_by_the_cookie(client, make_post, url):
    make_post(title="On swifts", slug="on-swifts", tags=["swifts"], status=posts.PUBLISHED)
    client.cookies[COOKIE] = "vi"
    response = client.get(url)
    assert response["Content-Language"] == "vi"
    assert {"accept-language", "cookie"} <= varies_by(response), f"{url}: Vary: {response.get('Vary')}"
