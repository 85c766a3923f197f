"""What every test shares, and nothing that starts a server.

The tests come in three tiers: tests/unit/ (pure: no database, no server),
tests/integration/<app>/ (against the development database, through Django's test
client and real processes) and tests/browser/ (headless Chromium against a gunicorn
site). The database fixtures and builders are tests/database.py's (a plugin, so
every tier may ask for them); only the integration and browser tiers' conftest.py
put every one of their tests on the database.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

pytest_plugins = ["tests.database", "tests.sites", "tests.clocks", "tests.scheduling"]


# Property tests judge answers, not speed: hypothesis's 200 ms deadline for an example,
# and its check that data is drawn fast enough, failed tests on a loaded 2-core machine
# (speed is measured by bench/, never by a test).
hypothesis_settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
hypothesis_settings.load_profile("suite")


def pytest_collection_modifyitems(config, items):
    """A test marked `@pytest.mark.stores("documents", ...)` runs only for those of
    `each_store`'s stores (it checks what only they store, such as raw documents)."""
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("stores")
        params = getattr(item, "callspec", None)
        name = params.params.get("each_store") if params else None
        (dropped if marker and name and name not in marker.args else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


# The time each tier took, summed over its tests' set-up, call and tear-down (and over
# the workers under pytest-xdist), printed at the end of a run (docs/testing.md).
_tier_seconds: Counter[str] = Counter()
_tier_tests: Counter[str] = Counter()


def _tier(nodeid: str) -> str:
    parts = nodeid.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else parts[0].partition("::")[0]


def pytest_runtest_logreport(report):
    tier = _tier(report.nodeid)
    _tier_seconds[tier] += report.duration
    if report.when == "teardown":
        _tier_tests[tier] += 1


def pytest_terminal_summary(terminalreporter):
    if _tier_seconds:
        terminalreporter.write_sep("-", "time by tier (set-up, call and tear-down, summed over the workers)")
        for tier, seconds in sorted(_tier_seconds.items(), key=lambda item: -item[1]):
            terminalreporter.write_line(f"{tier:<12} {_tier_tests[tier]:>5} tests {seconds:>8.1f} s")
