"""bench/imports.py `--repeat`: the same import run in processes of their own, each
run's rates and checks printed, then every target judged on the median of the runs'
ratios, with the number of runs that met it (one run's ratio moves by a tenth on a
small, busy machine)."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from django.conf import settings

REPO = Path(__file__).resolve().parents[3]
TARGET = 0.5  # the documents store's, for both imports (bench/imports.py TARGETS)


def test_repeated_runs_are_judged_on_the_median_of_their_ratios(tmp_path, mongo_db):
    env = {**os.environ, "MONGODB_URI": settings.MONGODB_URI, "COMMENTS_STORE": "documents",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    before = set(mongo_db.client.list_database_names())
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "imports.py"), "--comments", "150", "--per-thread", "50",
         "--workers", "0", "--format", "jsonl", "--repeat", "3"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    runs = re.findall(r"Disqus import \d+/s against \d+/s raw, ([\d.]+)x; "
                      r"JSON Lines import \d+/s against \d+/s raw, ([\d.]+)x", out)
    assert len(runs) == 3, out
    assert out.count("Stored once: 150 distinct of 150 stored, 150 in the file") == 6, out
    for k, what in enumerate(("Disqus import", "JSON Lines import")):
        ratios = [float(run[k]) for run in runs]
        line = next(line for line in out.splitlines() if line.strip().startswith(f"{what} >= {TARGET} x"))
        median = statistics.median(ratios)  # one of the three printed: rounding commutes with it
        assert f": {median:.2f}x ({', '.join(f'{r:.2f}' for r in ratios)}), " in line, line
        verdict = re.search(r"\), (met|NOT met); met in (\d) of 3 runs$", line)
        assert verdict, line
        # A ratio printed as 0.50 may be just under the target: either count holds for it.
        assert sum(r > TARGET for r in ratios) <= int(verdict[2]) <= sum(r >= TARGET for r in ratios), line
        assert verdict[1] == ("met" if median > TARGET else "NOT met") or median == TARGET, line
    left = set(mongo_db.client.list_database_names()) - before
    assert not [name for name in left if name.startswith("slugline_bench_")], left  # each run drops its own
