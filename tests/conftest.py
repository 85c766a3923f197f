"""What every test shares, and nothing that starts a server.

The tests come in three tiers: tests/unit/ (pure: no database, no server),
tests/integration/<app>/ (against the development database, through Django's test
client and real processes) and tests/browser/ (headless Chromium against a gunicorn
site). The database fixtures and builders are tests/database.py's (a plugin, so
every tier may ask for them); only the integration and browser tiers' conftest.py
put every one of their tests on the database.
"""

from __future__ import annotations

pytest_plugins = ["tests.database"]


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
