"""Who may use which dashboard URL: anonymous visitors go to the login page, logged-in
readers get 403, authors reach their own posts only, editors reach everything. Every
refusal writes nothing; every change is a POST with CSRF."""

from dataclasses import dataclass
from html import escape
from urllib.parse import quote

import pytest
from django.test import Client

from cms import authors, posts, versions
from dashboard.permissions import EDITORS_ONLY, NOT_STAFF, NOT_YOUR_POST, can_edit_post, is_editor
from slugline.errors import CSRF_FAILED

ROLES = ["anonymous", "reader", "author", "editor"]


@dataclass
class Site:
    users: dict
    own: posts.Post  # by the author
    other: posts.Post  # by another author
    own_version: versions.Version
    other_version: versions.Version

    def client(self, role: str, **options) -> Client:
        client = Client(**options)
        if role != "anonymous":
            client.force_login(self.users[role])
        return client


@pytest.fixture
def site(make_user, make_post) -> Site:
    users = {
        "reader": make_user("reader", role="reader"),
        "author": make_user("ada", display_name="Ada Lindqvist"),
        "editor": make_user("bruno", role="editor", display_name="Bruno Okafor"),
    }
    chen = make_user("chen", display_name="Chen Mei")
    own = make_post(author=authors.summary_for(users["author"]), title="Ada's post")
    other = make_post(author=authors.summary_for(chen), title="Chen's post")
    return Site(
        users=users,
        own=own,
        other=other,
        own_version=versions.save_version(post=own, saved_by="ada"),
        other_version=versions.save_version(post=other, saved_by="chen"),
    )


def urls(site: Site) -> dict[str, str]:
    own, other = site.own.id, site.other.id
    return {
        "list": "/dashboard/",
        "new": "/dashboard/posts/new/",
        "edit own": f"/dashboard/posts/{own}/",
        "edit other": f"/dashboard/posts/{other}/",
        "versions own": f"/dashboard/posts/{own}/versions/",
        "versions other": f"/dashboard/posts/{other}/versions/",
        "version own": f"/dashboard/posts/{own}/versions/{site.own_version.id}/",
        "version other": f"/dashboard/posts/{other}/versions/{site.other_version.id}/",
        "profile": "/dashboard/profile/",
        "authors": "/dashboard/authors/",
        "author edit": "/dashboard/authors/chen/",
    }


# Which roles may GET each page (anonymous never may).
ALLOWED = {
    "list": {"author", "editor"},
    "new": {"author", "editor"},
    "edit own": {"author", "editor"},
    "edit other": {"editor"},
    "versions own": {"author", "editor"},
    "versions other": {"editor"},
    "version own": {"author", "editor"},
    "version other": {"editor"},
    "profile": {"author", "editor"},
    "authors": {"editor"},
    "author edit": {"editor"},
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", list(ALLOWED))
def test_every_dashboard_page_answers_each_role_as_the_matrix_says(site, role, page):
    """GET: 200 where allowed, login redirect for anonymous, 403 in the site layout otherwise."""
    url = urls(site)[page]
    response = site.client(role).get(url)
    if role in ALLOWED[page]:
        assert response.status_code == 200
    elif role == "anonymous":
        assert response.status_code == 302
        assert response["Location"] == "/accounts/login/?next=" + quote(url)
    else:
        assert response.status_code == 403
        assert b'class="site-header"' in response.content
        expected = NOT_STAFF if role == "reader" else (EDITORS_ONLY if "author" in page else NOT_YOUR_POST)
        assert escape(expected) in response.content.decode()


POSTS = {
    "edit other": {"title": "Hijacked", "slug": "hijacked", "status": "draft"},
    "restore other": {},
    "author edit": {"username": "mallory", "display_name": "Mallory"},
    "new": {"title": "Sneaky", "status": "published"},
    "profile": {"display_name": "Sneaky"},
}


def post_url(site: Site, action: str) -> str:
    if action == "restore other":
        return f"/dashboard/posts/{site.other.id}/versions/{site.other_version.id}/restore/"
    return urls(site)[action]


@pytest.mark.parametrize(
    "role,action",
    [(r, a) for r in ("anonymous", "reader") for a in POSTS]
    + [("author", a) for a in ("edit other", "restore other", "author edit")],
)
def test_refused_posts_write_nothing(site, role, action, mongo_db, django_user_model):
    """A refused POST leaves posts, versions and users exactly as they were."""
    before = (
        list(mongo_db.posts.find()),
        mongo_db.post_versions.count_documents({}),
        sorted(django_user_model.objects.values_list("username", flat=True)),
    )
    response = site.client(role).post(post_url(site, action), POSTS[action])
    assert response.status_code == (302 if role == "anonymous" else 403)
    after = (
        list(mongo_db.posts.find()),
        mongo_db.post_versions.count_documents({}),
        sorted(django_user_model.objects.values_list("username", flat=True)),
    )
    assert after == before


def test_a_post_without_a_csrf_token_is_refused_in_the_site_layout(site):
    """Django's CSRF check is on for every form; its refusal is the site's 403 page."""
    client = site.client("editor", enforce_csrf_checks=True)
    response = client.post(urls(site)["edit own"], {"title": "No token", "status": "draft"})
    assert response.status_code == 403
    assert escape(CSRF_FAILED) in response.content.decode() and b'class="site-header"' in response.content
    assert posts.get_by_id(site.own.id).title == "Ada's post"


def test_the_forms_carry_a_csrf_token_and_post(site):
    """Every dashboard form is method=post with Django's token."""
    client = site.client("editor")
    for page in ("new", "edit own", "version own", "profile", "author edit"):
        html = client.get(urls(site)[page]).content.decode()
        assert 'method="post"' in html and "csrfmiddlewaretoken" in html, page


def test_a_restore_by_get_is_refused_and_changes_nothing(site):
    """GET never changes anything: restoring needs a POST."""
    url = post_url(site, "restore other")
    assert site.client("editor").get(url).status_code == 405
    assert versions.find_versions(post_id=site.other.id) == [site.other_version]


def test_inactive_staff_are_not_let_in(site):
    """A deactivated author cannot use a session that is still open."""
    author = site.users["author"]
    client = site.client("author")
    author.is_active = False
    author.save()
    assert client.get("/dashboard/").status_code in (302, 403)


def test_role_checks(site, make_user):
    """Editors edit everything; authors their own posts; superusers are editors."""
    author, editor = site.users["author"], site.users["editor"]
    assert is_editor(editor) and not is_editor(author) and not is_editor(site.users["reader"])
    assert can_edit_post(author, site.own) and not can_edit_post(author, site.other)
    assert can_edit_post(editor, site.other)
    boss = make_user("boss")
    boss.is_superuser = True
    assert is_editor(boss)


@pytest.mark.django_db
def test_migrations_create_the_editors_group():
    """Every installation has the Editors group; admins add members."""
    from django.contrib.auth.models import Group

    from dashboard.permissions import EDITORS_GROUP

    assert Group.objects.filter(name=EDITORS_GROUP).exists()


@pytest.mark.django_db
def test_a_lost_editors_group_comes_back_with_the_next_migrate():
    """The group is made after every migrate, as Django's permissions are: a table
    emptied by hand, or by a transactional test's flush, does not leave a site (or the
    tests after it) without editors' group."""
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from dashboard.permissions import EDITORS_GROUP

    Group.objects.filter(name=EDITORS_GROUP).delete()
    call_command("migrate", verbosity=0)
    assert Group.objects.filter(name=EDITORS_GROUP).count() == 1
