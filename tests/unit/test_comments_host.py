"""comments/host.py: BaseHost's defaults (a host overrides what differs), what the
system check names as missing, and the blog's host overriding at most eight of them."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from datetime import datetime, timezone

import pytest
from bson import ObjectId
from django.http import Http404

from comments.host import CANNOT_CREATE, NO_GET, REQUIRED, BaseHost, CannotCreate, missing_methods

WHEN = datetime(2026, 12, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Talk:
    id: ObjectId
    slug: str
    published: datetime | None = WHEN


@dataclass
class Person:
    full_name: str = ""
    username: str = "sam"
    is_authenticated: bool = True
    is_active: bool = True
    is_staff: bool = False
    email: str = ""

    def get_full_name(self) -> str:
        return self.full_name

    def get_username(self) -> str:
        return self.username


TALKS = [Talk(ObjectId(), "open"), Talk(ObjectId(), "draft", published=None)]


class OneByOne(BaseHost):
    """A host that writes `get` only."""

    def get(self, discussion_id):
        return next((t for t in TALKS if t.id == discussion_id), None)

    def get_by_slug(self, slug):
        return next((t for t in TALKS if t.slug == slug), None)


class AllAtOnce(BaseHost):
    """A host that writes `get_many` only."""

    asked: list

    def __init__(self):
        self.asked = []

    def get_many(self, ids):
        ids = list(ids)
        self.asked.append(ids)
        return [t for t in TALKS if t.id in ids]


def test_get_many_defaults_to_get_for_each_id_leaving_out_the_missing():
    assert OneByOne().get_many([TALKS[1].id, ObjectId(), TALKS[0].id]) == [TALKS[1], TALKS[0]]


def test_get_defaults_to_get_many_with_the_id_parsed():
    host = AllAtOnce()
    assert host.get(str(TALKS[0].id)) == TALKS[0]
    assert host.get(ObjectId()) is None
    assert host.get("not an id") is None
    assert host.asked == [[TALKS[0].id], [host.asked[1][0]]]  # nothing asked for a bad id


def test_a_host_with_neither_get_nor_get_many_says_so_instead_of_recursing():
    for ask in (lambda: BaseHost().get(ObjectId()), lambda: BaseHost().get_many([ObjectId()])):
        with pytest.raises(NotImplementedError, match=re.escape(NO_GET.format(host="BaseHost"))):
            ask()


def test_published_or_404_finds_by_slug_and_hides_what_is_not_published():
    assert OneByOne().published_or_404("open") == TALKS[0]
    for slug in ("draft", "nowhere"):
        with pytest.raises(Http404):
            OneByOne().published_or_404(slug)


def test_a_host_without_slugs_finds_nothing_by_slug():
    assert AllAtOnce().get_by_slug("open") is None
    with pytest.raises(Http404):
        AllAtOnce().published_or_404("open")


def test_creating_a_draft_is_refused_by_default_saying_imports_need_it():
    with pytest.raises(CannotCreate) as refused:
        OneByOne().create_draft(title="Old thread", slug="old-thread")
    assert refused.value.code == "cannot_create"
    assert refused.value.message == CANNOT_CREATE.format(host="OneByOne", title="Old thread")
    assert "create_draft" in refused.value.message and "import" in refused.value.message


def test_people_defaults():
    host = OneByOne()
    assert host.author_names() == []
    assert host.commenter_name(Person(full_name="Sam Lee")) == "Sam Lee"
    assert host.commenter_name(Person(full_name="")) == "sam"
    assert host.can_moderate(Person(is_staff=True))
    assert not host.can_moderate(Person(is_staff=False))
    assert not host.can_moderate(Person(is_staff=True, is_active=False))
    assert not host.can_moderate(Person(is_staff=True, is_authenticated=False))
    assert host.moderation_url() is None
    assert host.member_names() == []
    assert host.member_address(Person(email="sam@example.com")) == "sam@example.com"
    assert host.member_address(Person()) == ""
    assert host.member_verification_url(Person()) is None


class OnlyGet(BaseHost):
    def get(self, discussion_id):
        return None


class NoGet(BaseHost):
    def store_comment_summary(self, discussion_id, *, seq, count, latest):
        return True


def test_missing_methods_names_the_required_ones_a_subclass_did_not_write():
    assert missing_methods(OnlyGet) == list(REQUIRED) == []
    assert missing_methods(NoGet) == ["get or get_many"]


def test_a_class_that_does_not_subclass_base_host_needs_every_method():
    class Bare:
        def get(self, discussion_id):
            return None

    missing = missing_methods(Bare)
    assert "get" not in missing and {"get_many", "moderators", "create_draft", *REQUIRED} <= set(missing)


def test_the_blog_host_is_whole_and_overrides_at_most_eight_methods():
    """The blog writes the comment summary's methods (where the subset pattern's count
    and latest comments go, and dropping its copies of them: its own contract), the members' methods (what its readers'
    accounts say: their contract) and at most eight of the others; BaseHost gives the rest."""
    from cms.comments_host import BlogHost

    assert missing_methods(BlogHost) == []
    own_contracts = {"store_comment_summary", "forget_copies", "member_names", "member_address",
                     "member_verification_url", "member_facts", "member_pictures", "member_pictures_version"}
    overridden = [name for name, value in vars(BlogHost).items()
                  if inspect.isfunction(value) and name in vars(BaseHost) and name not in own_contracts]
    assert len(overridden) <= 8, overridden
    assert "get" not in overridden and "moderators" not in overridden
