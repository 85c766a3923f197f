"""sitemap.xml with Django's sitemaps framework: the home page, published posts,
and the author and tag pages that list them. Drafts and scheduled posts never appear."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from cms import posts


class HomeSitemap(Sitemap):
    changefreq = "daily"

    def items(self):
        return ["home"]

    def location(self, name):
        return reverse(name)


class PostSitemap(Sitemap):
    def items(self) -> list[posts.PostLink]:
        return posts.published_links()

    def location(self, link: posts.PostLink) -> str:
        return reverse("post", args=[link.slug])

    def lastmod(self, link: posts.PostLink):
        return link.lastmod


class AuthorSitemap(Sitemap):
    def items(self) -> list[str]:
        return posts.published_author_usernames()

    def location(self, username: str) -> str:
        return reverse("author", args=[username])


class TagSitemap(Sitemap):
    def items(self) -> list[str]:
        return posts.published_tags()

    def location(self, tag: str) -> str:
        return reverse("tag", args=[tag])


SITEMAPS = {"home": HomeSitemap, "posts": PostSitemap, "authors": AuthorSitemap, "tags": TagSitemap}
