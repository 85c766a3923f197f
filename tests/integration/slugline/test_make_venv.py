"""The first `make run` installs the requirements before anything else: the terminal
says so at once instead of staying silent for a minute, and pip shows what it does.
And what the Makefile's commands run with, whatever the shell's environment says."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_installing_the_requirements_says_what_is_happening(tmp_path):
    """The Makefile's virtualenv step, run for real in a copy with a one-line
    requirements.txt: a line before the install, pip's own lines, a line after; run
    again, nothing to do. A new virtualenv of the same requirements then installs from
    the wheelhouse the first install built (tools/wheelhouse.py), without the index:
    here the index is a closed port."""
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    shutil.copytree(REPO / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("node_modules"))
    (tmp_path / "requirements.txt").write_text("six==1.17.0\n")
    # As a newcomer runs it, not as a sub-make: under `make test` the inherited MAKELEVEL
    # would add make's "Entering/Leaving directory" lines.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env["SLUGLINE_WHEELHOUSE"] = str(tmp_path / "wheelhouse")
    done = subprocess.run(["make", "venv", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    announced = next(i for i, line in enumerate(lines) if line.startswith("make: installing requirements.txt"))
    assert any("six" in line for line in lines[announced + 1:-1])  # pip speaks
    assert lines[-1] == "make: .venv/ is ready"
    [house] = (tmp_path / "wheelhouse").iterdir()
    assert [wheel.name.split("-")[0] for wheel in house.iterdir()] == ["six"]
    again = subprocess.run(["make", "venv", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=60, env=env)
    assert "installing" not in again.stdout

    shutil.rmtree(tmp_path / ".venv")
    offline = {**env, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_FIND_LINKS": "", "PIP_RETRIES": "0",
               "PIP_TIMEOUT": "2"}
    anew = subprocess.run(["make", "venv", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env=offline)
    assert anew.returncode == 0, anew.stdout + anew.stderr
    assert f"make: installing from the wheelhouse {house}" in anew.stdout
    assert subprocess.run([tmp_path / ".venv" / "bin" / "python", "-c", "import six"]).returncode == 0

    # A wheelhouse that no longer installs (its wheel gone) is built again.
    for wheel in house.iterdir():
        wheel.unlink()
    shutil.rmtree(tmp_path / ".venv")
    rebuilt = subprocess.run(["make", "venv", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True,
                             text=True, timeout=300, env=env)
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert f"make: the wheelhouse {house} did not install; building it again" in rebuilt.stdout
    assert [wheel.name.split("-")[0] for wheel in house.iterdir()] == ["six"]


def test_the_makefiles_commands_write_python_byte_code_even_where_the_shell_says_not_to(tmp_path):
    """With PYTHONDONTWRITEBYTECODE set, a fresh clone would compile the project anew in
    every test process and every server a test starts; the Makefile's recipes do not
    inherit it (a recipe added here prints what its commands see)."""
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    recipe = 'seen: ; @echo "[$$PYTHONDONTWRITEBYTECODE]"; python3 -c "import sys; print(sys.dont_write_bytecode)"'
    shown = subprocess.run(["make", "-s", "--eval", recipe, "seen"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=60, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["[]", "False"]
