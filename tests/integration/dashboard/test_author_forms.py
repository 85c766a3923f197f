"""The dashboard's author form against Django's database: usernames taken by others,
and Django's own username rules (dashboard/author_forms.py)."""

import pytest

from cms.authors import USERNAME_TAKEN
from dashboard.author_forms import AuthorForm


def codes(form) -> dict[str, list[str]]:
    return {field: [e.code for e in errors] for field, errors in form.errors.as_data().items()}


def test_a_rename_to_a_taken_username_is_refused(make_user):
    """Another user's username is taken; the author's own is not."""
    ada, _ = make_user("ada"), make_user("bruno")
    assert AuthorForm({"username": "ada", "display_name": "Ada"}, user=ada).is_valid()
    form = AuthorForm({"username": "bruno", "display_name": "Ada"}, user=ada)
    assert codes(form) == {"username": ["username_taken"]} and form.errors["username"] == [USERNAME_TAKEN]


@pytest.mark.django_db
def test_usernames_follow_djangos_rules():
    """No spaces or slashes: usernames are part of author addresses."""
    from django.contrib.auth import get_user_model

    user = get_user_model()(pk=1, username="someone")
    assert not AuthorForm({"username": "a/b", "display_name": "A"}, user=user).is_valid()
    assert not AuthorForm({"username": "a b", "display_name": "A"}, user=user).is_valid()
    assert AuthorForm({"username": "a.b-c@d+e_f", "display_name": "A"}, user=user).is_valid()
