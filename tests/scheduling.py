"""How pytest-xdist hands the suite to its processes (a plugin of tests/conftest.py).

Under `--dist loadfile` each module is a unit of work, given to one process; the
browser tier's modules are one unit together, so one process runs them one after the
other and Playwright, Chromium, the browser site and its editor start once a run,
instead of once for each run of browser modules a process happened to be handed
between integration modules (docs/testing.md, "Time")."""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

BROWSER_TIER = "tests/browser/"


class BrowserTierTogether(LoadFileScheduling):
    """pytest-xdist's `loadfile`, with the browser tier as one unit."""

    def _split_scope(self, nodeid: str) -> str:
        return BROWSER_TIER if nodeid.startswith(BROWSER_TIER) else super()._split_scope(nodeid)


def pytest_xdist_make_scheduler(config, log):
    return BrowserTierTogether(config, log) if config.getvalue("dist") == "loadfile" else None
