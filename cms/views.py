from django.conf import settings
from django.http import Http404
from django.shortcuts import render

from cms import posts
from cms.pagination import get_page
from comments import pages
from comments.forms import CommentForm

NO_SUCH_POST = "There is no published post at this address."


def published_post_or_404(slug: str) -> posts.Post:
    post = posts.get_published(slug)
    if post is None:
        raise Http404(NO_SUCH_POST)
    return post


def home(request):
    """Published posts, newest first, each with its comment count and latest comments."""
    page = get_page(
        total=posts.count_published(),
        fetch=lambda skip, limit: posts.published_page(page=skip // limit + 1, per_page=limit),
        raw_number=request.GET.get("page"),
        per_page=settings.POSTS_PER_PAGE,
    )
    return render(request, "cms/home.html", {"page": page, "posts": page.object_list})


def post_detail(request, slug, *, form=None, status=200):
    """A post, the first page of its threaded comments and the comment form."""
    post = published_post_or_404(slug)
    listing = pages.list_comments(discussion_id=post.id, view="threaded")
    context = {
        "post": post,
        "listing": listing,
        "views": pages.VIEWS,
        "form": form or CommentForm(user=request.user),
    }
    return render(request, "cms/post_detail.html", context, status=status)
