"""The suite's pytest-xdist scheduler (tests/scheduling.py), driven as pytest-xdist's
controller drives it: two processes collect the same tests, and each asks for more
work as it finishes what it was given."""

from __future__ import annotations

from types import SimpleNamespace

from tests.scheduling import BrowserTierTogether, pytest_xdist_make_scheduler

COLLECTION = (
    [f"tests/browser/test_browser_{name}.py::test_{n}" for name in ("posting", "reading", "media") for n in range(2)]
    + [f"tests/integration/comments/test_{name}.py::test_{n}" for name in ("votes", "flags", "backup")
       for n in range(5)]
    + [f"tests/unit/test_{name}.py::test_{n}" for name in ("markup", "times") for n in range(3)]
)


class Process:
    """What the scheduler sees of one pytest-xdist process: the tests it is sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent += indexes

    def shutdown(self) -> None:
        self.shutting_down = True


def _config(dist: str = "loadfile"):
    values = {"tx": ["popen", "popen"], "dist": dist}
    return SimpleNamespace(getvalue=values.__getitem__, option=SimpleNamespace(loadscopereorder=True))


def _run(scheduler) -> dict[str, list[str]]:
    """Every test run to the end, each process finishing its tests in the order sent:
    the tests each process ran."""
    processes = [Process("gw0"), Process("gw1")]
    for process in processes:
        scheduler.add_node(process)
        scheduler.add_node_collection(process, COLLECTION)
    scheduler.schedule()
    ran: dict[str, list[str]] = {p.gateway.id: [] for p in processes}
    while busy := [p for p in processes if len(ran[p.gateway.id]) < len(p.sent)]:
        for process in busy:
            index = process.sent[len(ran[process.gateway.id])]
            ran[process.gateway.id].append(COLLECTION[index])
            scheduler.mark_test_complete(process, index)
    assert scheduler.tests_finished and not scheduler.workqueue
    return ran


def test_the_browser_tier_runs_in_one_process_and_the_other_modules_spread_by_module():
    ran = _run(BrowserTierTogether(_config()))

    assert sorted(ran["gw0"] + ran["gw1"]) == sorted(COLLECTION)
    browser = {name for name, tests in ran.items() for test in tests if test.startswith("tests/browser/")}
    assert len(browser) == 1
    for name, tests in ran.items():
        for module in {test.split("::")[0] for test in tests}:
            assert all(test in tests for test in COLLECTION if test.startswith(module + "::")), module
    assert ran["gw0"] and ran["gw1"]


def test_the_browser_modules_keep_their_order_one_after_the_other():
    ran = _run(BrowserTierTogether(_config()))

    (tests,) = [tests for tests in ran.values() if any(t.startswith("tests/browser/") for t in tests)]
    browser = [test for test in tests if test.startswith("tests/browser/")]
    assert browser == [test for test in COLLECTION if test.startswith("tests/browser/")]
    first = tests.index(browser[0])
    assert tests[first:first + len(browser)] == browser


def test_other_distribution_modes_keep_pytest_xdist_s_own_scheduler():
    assert pytest_xdist_make_scheduler(_config("load"), None) is None
    assert isinstance(pytest_xdist_make_scheduler(_config("loadfile"), None), BrowserTierTogether)
