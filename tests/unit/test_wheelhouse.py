"""tools/wheelhouse.py's pure parts: which wheelhouse a set of requirements uses, and
which wheelhouses stay. (`make venv` through it, for real: tests/integration/slugline/
test_make_venv.py.)"""

import importlib.util
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("wheelhouse", REPO / "tools" / "wheelhouse.py")
wheelhouse = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wheelhouse)


def test_a_wheelhouse_is_for_one_set_of_pins_and_one_icu():
    pins = b"Django==5.2.19\nPyICU==2.15.2\n"
    assert wheelhouse.key(pins, icu="72.1") == wheelhouse.key(pins, icu="72.1")
    assert wheelhouse.key(pins, icu="72.1") != wheelhouse.key(pins.replace(b"19", b"20"), icu="72.1")
    assert wheelhouse.key(pins, icu="72.1") != wheelhouse.key(pins, icu="74.2")


def test_the_three_most_recently_used_stay_and_a_scratch_folder_only_for_a_day(tmp_path):
    for age, name in enumerate(["newest", "second", "third", "fourth", "fifth"]):
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, (1_000_000 - age, 1_000_000 - age))
    (tmp_path / ".building.1").mkdir()  # a make building it now
    (tmp_path / ".killed.2").mkdir()
    os.utime(tmp_path / ".killed.2", (0, 0))
    wheelhouse.prune(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".building.1", "newest", "second", "third"]


def test_the_wheelhouse_is_under_the_users_cache_unless_named(monkeypatch, tmp_path):
    monkeypatch.delenv("SLUGLINE_WHEELHOUSE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert wheelhouse.home() == tmp_path / "slugline" / "wheelhouse"
    monkeypatch.setenv("SLUGLINE_WHEELHOUSE", str(tmp_path / "here"))
    assert wheelhouse.home() == tmp_path / "here"
