"""axe-core on every page type: no serious or critical violations."""

import pytest

# name -> (path made from the discussion, logged in as the editor?, expected status)
PAGES = {
    "home": (lambda d: "/", False),
    "post": (lambda d: f"/posts/{d.post.slug}/", False),
    "comments page": (lambda d: f"/posts/{d.post.slug}/comments/?view=newest&page=2", False),
    "permalink": (lambda d: f"/posts/{d.post.slug}/comments/{d.chain[4].slug}/", False),
    "author": (lambda d: "/authors/edith/", False),
    "tag": (lambda d: "/tags/mongodb/", False),
    "search": (lambda d: "/search/?q=threads", False),
    "login": (lambda d: "/accounts/login/", False),
    "sign-up": (lambda d: "/accounts/signup/", False),
    "sign-in code": (lambda d: "/accounts/login/code/", False),
    "password reset": (lambda d: "/accounts/password/reset/", False),
    "dashboard list": (lambda d: "/dashboard/", True),
    "post form": (lambda d: "/dashboard/posts/new/", True),
    "post editor": (lambda d: f"/dashboard/posts/{d.post.id}/", True),
    "error 404": (lambda d: "/posts/no-such-post/", False),
    "API reference": (lambda d: "/api/v1/reference/", False),
    "API tokens": (lambda d: "/dashboard/api-tokens/", True),
}


@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_serious_accessibility_violations(name, open_page, discussion, editor_state, axe):
    path, logged_in = PAGES[name]
    page = open_page(state=editor_state if logged_in else None)
    response = page.goto(path(discussion))
    assert response.status == (404 if name == "error 404" else 200)
    violations, described = axe(page)
    assert not violations, f"{name} ({path(discussion)}):\n{described}"


def test_refused_comment_form_has_no_serious_accessibility_violations(open_page, discussion, axe):
    """The form with its errors shown (a 400 page)."""
    page = open_page()
    page.goto(f"/posts/{discussion.post.slug}/")
    page.get_by_role("button", name="Post comment").click()
    page.wait_for_selector(".field-error")
    violations, described = axe(page)
    assert not violations, described


def test_post_form_preview_has_no_serious_accessibility_violations(open_page, editor_state, axe):
    page = open_page(state=editor_state)
    page.goto("/dashboard/posts/new/")
    page.get_by_label("Title").fill("Previewed")
    page.get_by_label("Content").fill("Some *Markdown*.\n\n    code")
    page.get_by_role("button", name="Preview").click()
    page.wait_for_selector(".preview")
    violations, described = axe(page)
    assert not violations, described


def test_inline_reply_form_and_loaded_comments_have_no_serious_accessibility_violations(
    open_page, discussion, axe
):
    """What static/js/slugline.js adds: a reply form under a comment, a loaded page."""
    page = open_page()
    page.goto(f"/posts/{discussion.post.slug}/")
    page.get_by_role("button", name="Load more comments").click()
    page.wait_for_selector(f"#{discussion.top[1].anchor}")
    page.locator(f"#{discussion.top[1].anchor}").get_by_role("link", name="Reply to").click()
    page.wait_for_selector("form.inline-reply textarea:focus")
    violations, described = axe(page)
    assert not violations, described


def test_moderation_queue_has_no_serious_accessibility_violations(open_page, editor_state, axe, discussion):
    page = open_page(state=editor_state)
    page.goto("/dashboard/")
    link = page.locator(".dashboard-nav a", has_text="Moderation")
    if link.count() == 0:
        pytest.skip("No moderation queue yet: /dashboard/moderation/ is missing")
    link.click()
    page.wait_for_url("**/dashboard/moderation/**")
    violations, described = axe(page)
    assert not violations, described
