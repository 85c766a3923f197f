"""How the names strangers may not take are kept (comments/posting/names.py
`reserved`): built once and then handed out as they are, in the process, not read
back out of a cache for every comment; built again after NAMES_SECONDS, after
`forget`, and once the cache is emptied, reading anew only the names not read before."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from comments.posting import names


class _Host:
    def __init__(self) -> None:
        self.asked = 0

    def author_names(self) -> list[str]:
        self.asked += 1
        return ["Ada Lindqvist"]

    def member_names(self) -> list[str]:
        return ["Rosa Parks"]


@pytest.fixture
def host(monkeypatch):
    found = _Host()
    monkeypatch.setattr(names, "get_host", lambda: found)
    names.forget()
    yield found
    names.forget()


def test_the_names_are_built_once_and_handed_out_as_they_are(host):
    first = names.reserved()
    assert names.reserved() is first and host.asked == 1
    assert names.is_taken("rosa PARKS") and names.is_taken("Lindqvist Ada") and not names.is_taken("Ada")


def test_forget_an_emptied_cache_and_time_build_them_again(host, monkeypatch):
    names.reserved()
    names.forget()
    names.reserved()
    assert host.asked == 2
    cache.clear()
    names.reserved()
    assert host.asked == 3
    later = names.time.monotonic() + names.NAMES_SECONDS + 1
    monkeypatch.setattr(names.time, "monotonic", lambda: later)
    names.reserved()
    assert host.asked == 4


def test_building_them_again_reads_only_the_names_not_read_before(monkeypatch):
    names._reserved_forms.cache_clear()
    read: list[str] = []
    readings = names.readings
    monkeypatch.setattr(names, "readings", lambda name, **kwargs: read.append(name) or readings(name, **kwargs))
    names.Reserved.of(["Quill Abernathy", "Tamsin Ovard"])
    again = names.Reserved.of(["Quill Abernathy", "Tamsin Ovard", "Bex Marlow"])
    assert sorted(read) == ["Bex Marlow", "Quill Abernathy", "Tamsin Ovard"]
    assert again.taken_by("OVARD, Tamsin") and again.taken_by("bexmarlow") and not again.taken_by("Quill")
