"""What browsers and crawlers ask every site for: the icon and robots.txt."""

from urllib.parse import urlsplit

from django.test import Client


def test_every_page_links_its_svg_icon_and_the_icon_is_served(client):
    """base.html links the icon, and the link leads to an SVG image."""
    html = client.get("/").content.decode()
    link = next(tag for tag in html.split("<link ")[1:] if tag.startswith('rel="icon"'))
    assert 'type="image/svg+xml"' in link
    href = link.split('href="', 1)[1].split('"', 1)[0]
    icon = Client().get(href)
    assert icon.status_code == 200 and icon["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in b"".join(icon.streaming_content if icon.streaming else [icon.content])


def test_favicon_ico_leads_to_the_icon(client):
    """/favicon.ico, which browsers ask for on their own, is no 404: it redirects
    (not permanently: the file's name changes with its content) to the linked icon."""
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    linked = client.get("/").content.decode()
    assert f'href="{response["Location"]}"' in linked
    assert Client().get(response["Location"]).status_code == 200
    assert client.head("/favicon.ico").status_code == 302


def test_robots_txt_keeps_crawlers_to_the_blog_and_names_the_sitemap(client, settings):
    """Plain text; the dashboard, admin and login pages are disallowed, the rest allowed,
    and the sitemap's absolute URL works."""
    settings.ALLOWED_HOSTS = ["blog.example.com"]
    response = client.get("/robots.txt", HTTP_HOST="blog.example.com")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert {"Disallow: /dashboard/", "Disallow: /admin/", "Disallow: /accounts/", "Allow: /"} <= set(lines)
    sitemap = [line.removeprefix("Sitemap: ") for line in lines if line.startswith("Sitemap: ")]
    assert sitemap == ["http://blog.example.com/sitemap.xml"]
    assert client.get(urlsplit(sitemap[0]).path, HTTP_HOST="blog.example.com").status_code == 200
    assert client.post("/robots.txt", HTTP_HOST="blog.example.com").status_code == 405
