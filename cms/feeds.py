"""RSS and Atom feeds with Django's syndication framework: the latest posts, the
posts of one tag, and one post's latest comments. Only published posts appear."""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed, Enclosure
from django.utils.html import escape, format_html
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from cms import posts, sharing
from cms.feed_languages import LanguageAtomFeed, LanguageRssFeed
from cms.published import published_post_or_404
from cms.views import NO_SUCH_TAG
from comments import api as comments_api
from comments.api import Comment
from media import library


FEED_IMAGE_WIDTH = 1024


@dataclass(frozen=True)
class FeedCover:
    url: str
    width: int
    height: int
    alt: str
    bytes: int
    content_type: str


class LatestPostsFeed(Feed):
    feed_type = LanguageRssFeed  # each item says its post's language
    title = gettext_lazy("Slugline: latest posts")
    description = gettext_lazy("The latest posts published on Slugline.")

    def link(self):
        return reverse("home")

    def items(self):
        return posts.published_page(page=1, per_page=settings.FEED_ITEMS)

    def item_title(self, post: posts.Post) -> str:
        return post.title

    def item_description(self, post: posts.Post) -> str:
        """The post's HTML, after its cover picture (an absolute URL: feed readers
        show it away from the site)."""
        cover = self._cover(post)
        if cover is None:
            return post.content_html
        return f'<p><img src="{escape(cover.url)}" width="{cover.width}" height="{cover.height}" alt="{escape(cover.alt)}"></p>' + post.content_html

    def item_enclosures(self, post: posts.Post) -> list[Enclosure]:
        cover = self._cover(post)
        return [Enclosure(cover.url, str(cover.bytes), cover.content_type)] if cover else []

    def _cover(self, post: posts.Post) -> FeedCover | None:
        """The post's cover as a feed shows it: its fallback rendition at about 1024 px."""
        image = library.get_by_key(post.cover) if post.cover else None
        if image is None:
            return None
        rendition = image.rendition(ext=image.fallback, at_least=FEED_IMAGE_WIDTH)
        return FeedCover(
            url=sharing.absolute(sharing.rendition_url(image, rendition)), width=rendition.width,
            height=rendition.height, alt="" if image.decorative else image.alt, bytes=rendition.bytes,
            content_type=rendition.content_type,
        )

    def item_link(self, post: posts.Post) -> str:
        return reverse("post", args=[post.slug])

    def item_author_name(self, post: posts.Post) -> str:
        return post.author.name

    def item_pubdate(self, post: posts.Post):
        return post.published

    def item_updateddate(self, post: posts.Post):
        # Atom requires <updated> on every entry: the last save, or the publication.
        return max(filter(None, [post.published, post.updated]))

    def item_categories(self, post: posts.Post):
        return post.tags

    def item_extra_kwargs(self, post: posts.Post) -> dict:
        return {"language": post.language}


class LatestPostsAtomFeed(LatestPostsFeed):
    feed_type = LanguageAtomFeed
    subtitle = LatestPostsFeed.description


@dataclass(frozen=True)
class TaggedPosts:
    tag: str
    posts: list[posts.Post]


class TagFeed(LatestPostsFeed):
    """The latest published posts with one tag; 404 for a tag no published post has."""

    def get_object(self, request, tag):
        found = posts.tag_published_page(tag=tag, skip=0, limit=settings.FEED_ITEMS)
        if not found:
            raise Http404(gettext(NO_SUCH_TAG))
        return TaggedPosts(tag=tag, posts=found)

    def title(self, obj: TaggedPosts) -> str:
        return gettext("Slugline: posts tagged “%(tag)s”") % {"tag": obj.tag}

    def description(self, obj: TaggedPosts) -> str:
        return gettext("The latest posts tagged “%(tag)s” on Slugline.") % {"tag": obj.tag}

    def link(self, obj: TaggedPosts) -> str:
        return reverse("tag", args=[obj.tag])

    def items(self, obj: TaggedPosts):
        return obj.posts


class TagAtomFeed(TagFeed):
    feed_type = LanguageAtomFeed

    def subtitle(self, obj: TaggedPosts) -> str:
        return self.description(obj)


FEED_VOTES = gettext_noop("Readers' votes: %(up)s up, %(down)s down")


@dataclass(frozen=True)
class PostComment:
    """A comment and the slug of the post it is on (for its permalink)."""

    post_slug: str
    comment: Comment


class PostCommentsFeed(Feed):
    """A published post's latest comments, newest first; 404 for drafts."""

    def get_object(self, request, slug):
        return published_post_or_404(slug)

    def title(self, post: posts.Post) -> str:
        return gettext("Comments on “%(title)s”") % {"title": post.title}

    def description(self, post: posts.Post) -> str:
        return gettext("The latest comments on “%(title)s” on Slugline.") % {"title": post.title}

    def link(self, post: posts.Post) -> str:
        return reverse("post", args=[post.slug])

    def items(self, post: posts.Post) -> list[PostComment]:
        latest = comments_api.latest_comments(discussion_id=post.id, limit=settings.FEED_ITEMS)
        return [PostComment(post.slug, comment) for comment in latest]

    def item_title(self, item: PostComment) -> str:
        return f"{item.comment.author.name}, {date_format(item.comment.posted, 'DATETIME_FORMAT')}"

    def item_description(self, item: PostComment) -> str:
        """The comment's text and, once readers have voted on it, their votes."""
        comment = item.comment
        if not (comment.votes_up or comment.votes_down):
            return comment.html
        votes = gettext(FEED_VOTES) % {"up": comment.votes_up, "down": comment.votes_down}
        return comment.html + format_html('<p class="comment-votes">{}</p>', votes)

    def item_link(self, item: PostComment) -> str:
        return reverse("comments:permalink", args=[item.post_slug, item.comment.slug])

    def item_author_name(self, item: PostComment) -> str:
        return item.comment.author.name

    def item_pubdate(self, item: PostComment):
        return item.comment.posted

    def item_updateddate(self, item: PostComment):
        # Atom's <updated>: when its author last edited it, else when it was posted.
        return item.comment.edited or item.comment.posted


class PostCommentsAtomFeed(PostCommentsFeed):
    feed_type = Atom1Feed

    def subtitle(self, post: posts.Post) -> str:
        return self.description(post)
