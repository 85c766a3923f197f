from django.shortcuts import get_object_or_404, render

from blog.models import Post


def post_detail(request, slug):
    """The post and its comments, threaded by xtd's own tree rendering, and the form."""
    post = get_object_or_404(Post, slug=slug)
    return render(request, "blog/post_detail.html", {"post": post})
