"""The order pytest-xdist's workers take the suite in (tests/scheduling.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests import scheduling


@dataclass
class Item:
    nodeid: str


def ids(items):
    return [item.nodeid for item in items]


def test_the_browser_tier_is_one_unit_and_a_module_is_one_elsewhere():
    assert scheduling.unit_of("tests/browser/test_browser_reading.py::test_x[js]") == "tests/browser"
    assert scheduling.unit_of("tests/browser/test_browser_votes.py::test_y") == "tests/browser"
    assert scheduling.unit_of("tests/integration/comments/test_votes.py::test_z[documents]") == \
        "tests/integration/comments/test_votes.py"
    assert scheduling.unit_of("tests/browserish/test_a.py::test_b") == "tests/browserish/test_a.py"


def test_the_browser_tier_goes_first_as_one_unit_with_each_units_tests_together_in_order():
    items = [Item(nodeid) for nodeid in (
        "tests/unit/test_many.py::a", "tests/unit/test_many.py::b",
        "tests/browser/test_one.py::a", "tests/integration/test_slow.py::a", "tests/browser/test_two.py::a",
        "tests/browser/test_one.py::b", "tests/unit/test_many.py::c",
    )]
    seconds = {"tests/unit/test_many.py": 1.5, "tests/integration/test_slow.py": 60.0, "tests/browser": 20.0}
    assert ids(scheduling.in_turn(items, seconds)) == [
        "tests/browser/test_one.py::a", "tests/browser/test_two.py::a", "tests/browser/test_one.py::b",
        "tests/integration/test_slow.py::a",
        "tests/unit/test_many.py::a", "tests/unit/test_many.py::b", "tests/unit/test_many.py::c",
    ]


def test_long_units_take_turns_with_short_ones_of_about_their_weight_and_the_shortest_end_the_run():
    seconds = {"tests/a.py": 60.0, "tests/b.py": 40.0, "tests/c.py": 30.0, "tests/d.py": 25.0,
               "tests/e.py": 20.0, "tests/f.py": 15.0, "tests/g.py": 10.0, "tests/h.py": 5.0, "tests/i.py": 1.0}
    items = [Item(f"{unit}::t") for unit in reversed(seconds)]
    order = [scheduling.unit_of(item.nodeid) for item in scheduling.in_turn(items, seconds)]
    # Half of the 206 seconds is a, b and c (130 s); the rest (76 s) follows them,
    # about 0.58 s of short ones after each second of long ones, the shortest last.
    assert order == ["tests/a.py", "tests/d.py", "tests/e.py",
                     "tests/b.py", "tests/f.py",
                     "tests/c.py", "tests/g.py", "tests/h.py", "tests/i.py"]


def test_a_unit_the_record_lacks_counts_by_its_number_of_tests():
    items = [Item("tests/unit/test_new.py::a"), Item("tests/unit/test_known.py::a")] + [
        Item(f"tests/unit/test_big_new.py::t{n}") for n in range(10)
    ]
    ordered = scheduling.in_turn(items, {"tests/unit/test_known.py": 2.0})
    # 5 s for ten tests, 2 s recorded, 0.5 s for one: the first is the long half alone.
    assert [scheduling.unit_of(item.nodeid) for item in ordered][::10] == [
        "tests/unit/test_big_new.py", "tests/unit/test_known.py",
    ]
    assert ordered[-1].nodeid == "tests/unit/test_new.py::a"


def test_recording_merges_the_units_that_ran_and_leaves_the_others(tmp_path):
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"tests/unit/test_old.py": 3.0, "tests/unit/test_a.py": 9.0}))
    recorder = scheduling.Recorder()
    for when, seconds in (("setup", 0.25), ("call", 1.0), ("teardown", 0.25)):
        recorder.add("tests/unit/test_a.py::x", seconds, called=when == "call")
    recorder.add("tests/browser/test_b.py::y", 2.0, called=True)
    recorder.add("tests/browser/test_c.py::z", 3.0, called=True)
    # Skipped at set-up: no call; its set-up and tear-down are not a record of the module.
    recorder.add("tests/integration/test_cluster.py::w", 0.1, called=False)
    recorder.add("tests/integration/test_cluster.py::w", 0.0, called=False)
    recorder.write(path)
    assert scheduling.recorded(path) == {
        "tests/browser": 5.0, "tests/unit/test_a.py": 1.5, "tests/unit/test_old.py": 3.0,
    }


def test_an_unreadable_record_orders_by_number_of_tests(tmp_path):
    path = tmp_path / "durations.json"
    path.write_text("{not json")
    assert scheduling.recorded(path) == {}
    path.write_text("[1, 2]")
    assert scheduling.recorded(path) == {}
    assert scheduling.recorded(tmp_path / "missing.json") == {}


def test_the_recorded_file_names_units_of_this_suite():
    """A stale name only costs its unit the count-based guess, but a renamed module
    should be recorded again: every unit in the file exists."""
    root = Path(__file__).resolve().parents[2]
    for unit in scheduling.recorded():
        assert (root / unit).exists(), unit
