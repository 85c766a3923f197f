"""The pure rules of members in the comments app: their avatar's initials and colour
(comments/reading/avatars.py), who may comment (comments/posting/members.py) and the
check of COMMENTS_WHO_MAY_COMMENT."""

from __future__ import annotations

import pytest

from comments import checks
from comments.posting import members
from comments.reading import avatars


@pytest.mark.parametrize(("name", "expected"), [
    ("Ada Lovelace", "AL"), ("grace", "G"), ("Grace Brewster Murray Hopper", "GH"), ("  émile   zola ", "ÉZ"),
    ("E\u0301mile", "É"), ("(Bob) [Smith]", "BS"), ("李 小龙", "李小"), ("42 things", "4T"), ("--- !!!", "?"), ("", "?"),
])
def test_initials_are_the_first_letters_of_the_first_and_last_words(name, expected):
    assert avatars.initials(name) == expected


def test_a_members_colour_is_fixed_by_their_id_and_strangers_have_no_avatar():
    assert avatars.colour(7) == avatars.colour(7) == 7 and avatars.colour(8) == 0
    assert {avatars.colour(n) for n in range(100)} == set(range(avatars.PALETTE))
    assert avatars.avatar_for(user_id=12, name="Mia Member") == avatars.Avatar(initials="MM", colour=4)
    assert avatars.avatar_for(user_id=None, name="Vic") is None


class Anonymous:
    is_authenticated = False


def test_strangers_comment_where_anyone_may_and_are_sent_to_sign_in_where_only_members_may(settings):
    settings.LOGIN_URL = "/accounts/login/"
    assert members.refusal(Anonymous(), next_url="/posts/a/") is None
    settings.COMMENTS_WHO_MAY_COMMENT = "members"
    refused = members.refusal(Anonymous(), next_url="/posts/a/?view=newest")
    assert refused is not None and refused.code == "members_only"
    assert refused.url == "/accounts/login/?next=%2Fposts%2Fa%2F%3Fview%3Dnewest"


def test_a_mistyped_setting_is_an_error_and_counts_as_members_only(settings):
    settings.COMMENTS_WHO_MAY_COMMENT = "everyone"
    assert [error.id for error in checks.known_who_may_comment(None)] == ["comments.E008"]
    assert members.members_only()
    settings.COMMENTS_WHO_MAY_COMMENT = "anyone"
    assert checks.known_who_may_comment(None) == [] and not members.members_only()


class SignedIn:
    is_authenticated = True


def test_where_only_strangers_comment_a_signed_in_reader_is_refused_without_a_link(settings):
    settings.COMMENTS_WHO_MAY_COMMENT = "anonymous"
    assert checks.known_who_may_comment(None) == []
    assert members.anonymous_only() and not members.members_only()
    assert members.refusal(Anonymous(), next_url="/posts/a/") is None
    refused = members.refusal(SignedIn(), next_url="/posts/a/")
    assert refused is not None and (refused.code, refused.url, refused.label) == ("anonymous_only", "", "")
    assert "Sign out" in refused.message
