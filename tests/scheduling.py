"""The order in which pytest-xdist's workers take the suite.

`make test` runs pytest on TEST_WORKERS processes with `--dist loadfile`: a module's
tests stay in one process, so its module fixtures are made once. pytest-xdist hands
the modules out with the most tests first, so a module of a few slow tests (a gunicorn
site started three times, a migration under load) came last, and one worker ran it
while the others had finished. Here the browser tier is one unit: one worker takes
every browser test at the start, with one gunicorn site and one Chromium, while the
others run the integration and unit tiers, long modules in turn with short ones, by
the seconds each took in a recorded run (tests/durations.json, written by
`--record-durations`; a unit it does not name counts UNKNOWN seconds a test). Long
modules first, all of them (the textbook order), was slower here: the slow modules
start servers, and run together on two cores each took up to twice as long.

Without pytest-xdist (TEST_WORKERS=0) the order is the collection's, the browser tier
last (tests/conftest.py).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from xdist.scheduler import LoadScopeScheduling

DURATIONS = Path(__file__).with_name("durations.json")
BROWSER = "tests/browser"
UNKNOWN = 0.5  # seconds a test, for a unit the recorded run did not have


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


Item = TypeVar("Item", bound=_Item)


def unit_of(nodeid: str) -> str:
    """The work unit a test belongs to: the browser tier, or its module."""
    if nodeid.startswith(BROWSER + "/"):
        return BROWSER
    return nodeid.split("::", 1)[0]


def recorded(path: Path = DURATIONS) -> dict[str, float]:
    """The seconds each unit took in the recorded run ({} without a readable file)."""
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {unit: float(seconds) for unit, seconds in found.items()} if isinstance(found, dict) else {}


def in_turn(items: Sequence[Item], seconds: dict[str, float]) -> list[Item]:
    """`items` grouped in their units, in the order the workers should take them: the
    browser tier first (one worker runs it beside the others all along), then the
    longest half of the rest (by weight) in turn with the shortest half, each long
    unit followed by short ones of its share of their weight, so that two slow
    modules that start servers rarely run at once and the run ends on short ones. A unit's items,
    and units of equal weight, keep their order."""
    units: dict[str, list[Item]] = {}
    for item in items:
        units.setdefault(unit_of(item.nodeid), []).append(item)

    def weight(unit: str) -> float:
        return seconds.get(unit, UNKNOWN * len(units[unit]))

    rest = sorted((unit for unit in units if unit != BROWSER), key=lambda unit: -weight(unit))
    half, so_far, cut = sum(map(weight, rest)) / 2, 0.0, 0
    while cut < len(rest) and so_far < half:
        so_far += weight(rest[cut])
        cut += 1
    order = [BROWSER] if BROWSER in units else []
    share = sum(map(weight, rest[cut:])) / so_far if so_far else 0.0  # short seconds a long second
    long_done = short_done = 0.0
    short = iter(rest[cut:])
    for unit in rest[:cut]:
        order.append(unit)
        long_done += weight(unit)
        while short_done < long_done * share and (next_short := next(short, None)) is not None:
            order.append(next_short)
            short_done += weight(next_short)
    order.extend(short)
    return [item for unit in order for item in units[unit]]


class InTurn(LoadScopeScheduling):
    """`--dist loadfile` with the browser tier as one unit, the units handed out in
    the collection's order (which `in_turn` made), not by their number of tests."""

    def __init__(self, config, log=None) -> None:
        config.option.loadscopereorder = False
        super().__init__(config, log)

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)


class Recorder:
    """The seconds each unit's tests took (set-up, call and tear-down), for
    `--record-durations`; a unit none of whose tests was called (every one skipped)
    is not recorded."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.ran: set[str] = set()

    def add(self, nodeid: str, duration: float, *, called: bool) -> None:
        unit = unit_of(nodeid)
        self.seconds[unit] += duration
        if called:
            self.ran.add(unit)

    def write(self, path: Path = DURATIONS) -> None:
        """Merges this run's units into the file (the others keep theirs)."""
        merged = recorded(path)
        merged.update({unit: round(self.seconds[unit], 1) for unit in self.ran})
        path.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n")

