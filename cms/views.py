from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpResponsePermanentRedirect, HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods
from pymongo.errors import PyMongoError

from cms import authors, posts, sharing
from cms.forms import SearchForm
from cms.published import published_post_or_404
from comments import api as comments_api
from comments.api import Comment
from infra import stale
from infra.mongo import is_outage
from infra.pagination import get_page, parse_page_number
from media import library

def post_cover(post: posts.Post) -> library.Image | None:
    """The post's cover image (the copy last read while MongoDB is unreachable)."""
    if not post.cover:
        return None
    return stale.remembered(f"cover:{post.cover}", lambda: library.get_by_key(post.cover))


def covers_for(page_posts) -> dict[str, library.Image]:
    """The cover images of a list's posts, by key, in one query; none while MongoDB
    is unreachable (the list shows without them)."""
    keys = [post.cover for post in page_posts if post.cover]
    if not keys:
        return {}
    try:
        return library.find_by_keys(keys)
    except PyMongoError as exc:
        if not is_outage(exc):
            raise
        return {}


def home(request):
    """Published posts, newest first, each with its comment count and latest comments."""
    number = parse_page_number(request.GET.get("page"))

    def fetch_page():
        total = posts.count_published()
        page = get_page(
            total=total,
            fetch=lambda skip, limit: posts.newest_published(skip=skip, limit=limit),
            raw_number=str(number),
            per_page=settings.POSTS_PER_PAGE,
        )
        # Kept as plain values (a page of a range), so the last good copy can be stored.
        return Paginator(range(total), settings.POSTS_PER_PAGE).page(page.number), list(page.object_list)

    page, entries = stale.remembered(f"home:{number}", fetch_page)
    context = {"page": page, "posts": entries, "covers": covers_for(entries),
               "canonical": sharing.list_canonical(reverse("home"), page.number),
               "description": gettext(sharing.HOME_DESCRIPTION)}
    return render(request, "cms/home.html", context)


def post_detail(request, slug):
    """A post, the first page of its comments (COMMENTS_DEFAULT_VIEW) and the comment
    form: `{% comment_section post %}` (the comments app's tag, which takes the page's
    comments from the cache when this reader may share them). While MongoDB is
    unreachable the article still shows (from its last copy), with its cached comments
    or a notice in their place. `?page=N`: that page of comments (where posting a
    comment lands, with its confirmations beside it: the rest go at the top)."""
    post = published_post_or_404(slug)
    section = comments_api.comment_section(request, post)
    cover = post_cover(post)
    context = {
        "post": post,
        "cover": cover,
        "sharing": sharing.post_sharing(post, cover=cover),
        "messages": section.messages,
    }
    return render(request, "cms/post_detail.html", context)


# --- Authors, tags and search (the publishing issue) ---------------------------------

NO_SUCH_AUTHOR = gettext_noop("There is no author at this address.")
NO_SUCH_TAG = gettext_noop("No published post has this tag.")


@dataclass(frozen=True)
class Entry:
    """A post in a list, with its latest comments as the comments store has them."""

    post: posts.Post
    comments: list[Comment]


def with_latest_comments(page_posts: list[posts.Post]) -> list[Entry]:
    """Each post with its latest comments, fetched for all of them in one `$in` query.

    Each post's summary names its latest comments; the query fetches exactly those.
    """
    named = {post.id: [(post.id, latest.slug) for latest in post.latest_comments] for post in page_posts}
    keys = [key for post_keys in named.values() for key in post_keys]
    found = {(c.discussion_id, c.slug): c for c in comments_api.comments_by_keys(keys=keys)}
    return [Entry(post, [found[key] for key in named[post.id] if key in found]) for post in page_posts]


@require_http_methods(["GET", "HEAD"])
def author(request, username):
    """An author's published posts, newest first, each with its latest comments
    (three commands: count, posts, comments by `$in`), and on the first page the
    comments the author wrote (two more). A former username redirects."""
    user = authors.find_author(username=username)
    if user is None:
        renamed = authors.find_renamed(username=username)
        if renamed is None:
            raise Http404(gettext(NO_SUCH_AUTHOR))
        return HttpResponsePermanentRedirect(reverse("author", args=[renamed.get_username()]))
    profile = authors.public_profile(user)
    page = get_page(
        total=posts.count_author_published(username=profile.username),
        fetch=lambda skip, limit: posts.author_published_page(
            username=profile.username, skip=skip, limit=limit
        ),
        raw_number=request.GET.get("page"),
        per_page=settings.POSTS_PER_PAGE,
    )
    written = comments_written(user_id=user.pk) if page.number == 1 else []
    context = {"profile": profile, "page": page, "entries": with_latest_comments(page.object_list),
               "written": written, "covers": covers_for(page.object_list),
               "canonical": sharing.list_canonical(reverse("author", args=[profile.username]), page.number),
               "description": sharing.author_description(profile.name, profile.bio)}
    return render(request, "cms/author.html", context)


# How many of an author's own comments their page lists.
AUTHOR_COMMENTS = 10


@dataclass(frozen=True)
class Written:
    """A comment an author wrote, with the post it is on."""

    post: posts.Post
    comment: Comment


def comments_written(*, user_id: int, limit: int = AUTHOR_COMMENTS) -> list[Written]:
    """The newest comments this member wrote that readers can see (approved, on a
    published post), newest first: two commands (the comments, their posts by `$in`)."""
    comments = comments_api.latest_comments_by_author(author_id=user_id, limit=limit)
    found = posts.find_by_ids(ids={c.discussion_id for c in comments}) if comments else []
    on = {post.id: post for post in found}
    return [Written(on[c.discussion_id], c) for c in comments
            if c.discussion_id in on and on[c.discussion_id].state == posts.PUBLISHED]


@require_http_methods(["GET", "HEAD"])
def tag(request, tag):
    """The published posts with this tag, newest first; 404 if there are none."""
    total = posts.count_tag_published(tag=tag)
    if total == 0:
        raise Http404(gettext(NO_SUCH_TAG))
    page = get_page(
        total=total,
        fetch=lambda skip, limit: posts.tag_published_page(tag=tag, skip=skip, limit=limit),
        raw_number=request.GET.get("page"),
        per_page=settings.POSTS_PER_PAGE,
    )
    context = {"tag": tag, "page": page, "posts": page.object_list, "covers": covers_for(page.object_list),
               "canonical": sharing.list_canonical(reverse("tag", args=[tag]), page.number),
               "description": gettext(sharing.TAG_DESCRIPTION) % {"tag": tag}}
    return render(request, "cms/tag.html", context)


@require_http_methods(["GET", "HEAD"])
def search(request):
    """Published posts whose title or text contains the words asked for, taken literally."""
    form = SearchForm(request.GET)
    text = form.cleaned_data["q"].strip() if form.is_valid() else ""
    page = None
    if text:
        page = get_page(
            total=posts.count_search_published(text=text),
            fetch=lambda skip, limit: posts.search_published_page(text=text, skip=skip, limit=limit),
            raw_number=request.GET.get("page"),
            per_page=settings.POSTS_PER_PAGE,
        )
    context = {"form": form, "text": text, "page": page, "query": urlencode({"q": text}),
               "covers": covers_for(page.object_list) if page else {}}
    return render(request, "cms/search.html", context, status=400 if form.errors else 200)


# --- What browsers and crawlers ask every site for -----------------------------------


@require_http_methods(["GET", "HEAD"])
def favicon(request):
    """Browsers ask for /favicon.ico whatever the page links: send them to the icon.
    Not a permanent redirect: the static file's name carries its content's hash."""
    return HttpResponseRedirect(static("favicon.svg"))


@require_http_methods(["GET", "HEAD"])
def robots(request):
    """Crawlers may read the blog, not the dashboard, admin or login pages; the
    sitemap is named by its absolute URL, as the robots.txt standard asks."""
    context = {"sitemap_url": request.build_absolute_uri(reverse("sitemap"))}
    return render(request, "cms/robots.txt", context, content_type="text/plain; charset=utf-8")
