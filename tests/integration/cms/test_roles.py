"""Who is an editor (cms/roles.py): one rule, whether asked of one user
(`is_editor`, which the dashboard and moderation use) or for all of them
(`editors()`, who hear of comments waiting in the queue)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from cms.roles import EDITORS_GROUP, editors, is_editor


@pytest.fixture
def people(db) -> dict:
    """Users of every kind the rule must tell apart, each with an address."""
    group = Group.objects.get_or_create(name=EDITORS_GROUP)[0]
    make = get_user_model().objects.create_user

    def user(username, *, staff=False, superuser=False, active=True, editor=False, email=None):
        person = make(username=username, email=f"{username}@example.org" if email is None else email,
                      is_staff=staff, is_superuser=superuser, is_active=active)
        if editor:
            person.groups.add(group)
        return person

    return {
        "staff superuser": user("root", staff=True, superuser=True),
        "superuser without staff": user("owner", superuser=True),
        "staff editor": user("bruno", staff=True, editor=True),
        "editor without staff": user("former", editor=True),
        "staff author": user("ada", staff=True),
        "inactive staff superuser": user("gone", staff=True, superuser=True, active=False),
        "reader": user("reader"),
    }


def test_editors_are_staff_superusers_and_staff_in_the_editors_group(people):
    assert {name for name, person in people.items() if is_editor(person)} == {"staff superuser", "staff editor"}


def test_editors_lists_exactly_the_users_is_editor_accepts(people):
    """A superuser who is not staff cannot open the dashboard, so is not an editor
    either way, and is sent no mail about the moderation queue."""
    assert set(editors()) == {person for person in people.values() if is_editor(person)}


def test_an_editor_without_an_address_is_not_listed(people):
    people["staff editor"].email = ""
    people["staff editor"].save()
    assert set(editors()) == {people["staff superuser"]}
