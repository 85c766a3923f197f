"""tests/static_scan.py: a middleware made while scans are shared serves the same
files as one that scanned for itself, scans once per set of settings, scans again
when a setting the scan reads changes, and the sharing ends with the context."""

from __future__ import annotations

from django.test import override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

from tests.static_scan import scans_shared


def _make() -> WhiteNoiseMiddleware:
    return WhiteNoiseMiddleware(lambda request: None)


def test_a_shared_scan_gives_what_a_scan_of_its_own_finds(tmp_path):
    (tmp_path / "site.css").write_text("body { color: black }")
    (tmp_path / "app.js").write_text("console.log(1)")
    with override_settings(STATIC_ROOT=str(tmp_path), WHITENOISE_AUTOREFRESH=False):
        own = _make()
        with scans_shared() as scans:
            first, second = _make(), _make()
            assert len(scans) == 1
            assert first.files is not second.files
            assert set(second.files) == set(own.files) >= {"/static/site.css", "/static/app.js"}
            assert [second.files[url].alternatives for url in sorted(own.files)] == \
                [own.files[url].alternatives for url in sorted(own.files)]
            with override_settings(WHITENOISE_MAX_AGE=7):
                other = _make()
            assert len(scans) == 2 and other.max_age == 7


def test_outside_the_context_every_middleware_scans_for_itself(tmp_path):
    original = WhiteNoiseMiddleware.__init__
    (tmp_path / "site.css").write_text("body {}")
    with override_settings(STATIC_ROOT=str(tmp_path), WHITENOISE_AUTOREFRESH=False):
        with scans_shared() as scans:
            _make()
            (tmp_path / "late.css").write_text("p {}")
            assert "/static/late.css" not in _make().files  # the first scan's files
        assert WhiteNoiseMiddleware.__init__ is original
        with override_settings(WHITENOISE_MAX_AGE=11):  # settings no context has scanned
            assert "/static/late.css" in _make().files
    assert len(scans) == 1


def test_a_context_within_another_shares_too(tmp_path):
    """The unit tier may run in a process whose session already shares its scans."""
    (tmp_path / "site.css").write_text("body {}")
    with override_settings(STATIC_ROOT=str(tmp_path), WHITENOISE_AUTOREFRESH=False):
        with scans_shared() as outer:
            _make()
            with scans_shared() as inner:
                first, second = _make(), _make()
            assert len(outer) == 1 and len(inner) == 1
            assert set(first.files) == set(second.files) >= {"/static/site.css"}
