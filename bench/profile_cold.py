"""Profile: the cold post page beside the limit, under gunicorn, per request.

Serves `/posts/<slug>/` of one post with N demo comments (seeded as bench/peer.py
seeds them) from two gunicorns of one sync worker each, with Slugline's
gunicorn.conf.py: `slugline-cold` (COMMENTS_CACHE_SECONDS=0) and `limit`
(bench/peer/limit_app.py: the same templates, no database). One client asks each in
turn, one request at a time, and the script prints:

- the server's CPU per answer (its processes' user and system time from /proc over
  `--requests` answers, in `--rounds` interleaved rounds), without a profiler, and the
  database's meanwhile (FerretDB's and PostgreSQL's processes, when found on this
  machine: `peer.database_pids`; other clients of the database count in it too);
- then, served again under cProfile (bench/peer/profiling_conf.py), the Python calls
  per answer and the functions whose time differs most between the two pages, with
  their calls per answer: what the cold page does beyond the limit.

    .venv/bin/python bench/profile_cold.py --comments 100 --keep
    .venv/bin/python bench/profile_cold.py --database slugline_peer_100_ab12cd34 --html /tmp/before
    .venv/bin/python bench/profile_cold.py --database slugline_peer_100_ab12cd34 --base /tmp/base

`--base DIR` serves a third gunicorn, `base-cold`: the cold page of another work tree
of Slugline (a change's base) in the same interleaved rounds, so that a change is
measured before and after in one run. `--keep` leaves the scratch database (its name is printed) so that another run, on
other code, measures the same data with `--database`; `--html DIR` writes each
server's first answer there. Call counts are deterministic; CPU times move with the
machine's load (printed), so compare runs made one after the other.
"""

from __future__ import annotations

import argparse
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import peer  # noqa: E402  (sets Django up)
from django.conf import settings  # noqa: E402

from cms import posts  # noqa: E402
from comments.reading import listers  # noqa: E402
from infra import mongo  # noqa: E402

PATH = f"/posts/{peer.SLUG}/"
PROFILING_CONF = peer.REPO / "bench" / "peer" / "profiling_conf.py"


def servers(*, uri: str, name: str, workdir: Path, profile: Path | None, skip: int,
            base: Path | None = None) -> list[peer.Server]:
    """The cold page's and the limit's gunicorns, one worker each (and `base-cold`, the
    cold page of the work tree `base`)."""
    env = {**os.environ, **peer.gunicorn_env(), "WEB_CONCURRENCY": "1", "MONGODB_URI": uri,
           "MONGODB_NAME": name, "DJANGO_SETTINGS_MODULE": "slugline.settings",
           "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}", "STATIC_ROOT": str(workdir / "static"),
           "LIMIT_POST_SLUG": peer.SLUG, "PROFILE_SKIP": str(skip)}
    apps = {"slugline-cold": ["slugline.wsgi"],
            "limit": ["--pythonpath", str(peer.REPO / "bench" / "peer"), "limit_app:application"]}
    found = []
    for server, app in apps.items():
        out = {"PROFILE_OUT": str(profile / f"{server}.prof")} if profile else {}
        argv = [peer.GUNICORN, "--config", str(PROFILING_CONF), *app]
        found.append(peer.Server(server, 0, argv, {**env, peer.CACHE_SETTING: "0", **out}, peer.REPO))
    if base is not None:
        out = {"PROFILE_OUT": str(profile / f"{peer.BASE}.prof")} if profile else {}
        argv = [peer.GUNICORN, "--config", str(PROFILING_CONF), "slugline.wsgi"]
        env = {**env, peer.CACHE_SETTING: "0", "STATIC_ROOT": str(workdir / "static-base"), **out}
        found.append(peer.Server(peer.BASE, 0, argv, env, base))
    return found


def ask(server: peer.Server, expected: peer.Expected, count: int) -> bytes:
    """`count` requests one after the other; every answer must show the expected comments."""
    body = b""
    for _ in range(count):
        status, body = peer.fetch(server.port, PATH, timeout=30)
        problem = peer._error(status, body, peer.SLUGLINE_COMMENT, expected)
        if problem:
            raise RuntimeError(f"{server.name}: {problem}")
    return body


def cpu_per_answer(found: list[peer.Server], expected: peer.Expected, *, requests: int, rounds: int,
                   warmup: int, db_pids: frozenset[int] = frozenset()) -> dict[str, tuple[float, float]]:
    """Each server's CPU ms per answer and the database's (its processes `db_pids`,
    FerretDB's and PostgreSQL's, meanwhile: other clients' work falls in it too), over
    `requests` answers in interleaved rounds."""
    spent = {server.name: (0.0, 0.0) for server in found}
    for server in found:
        ask(server, expected, warmup)
    for _ in range(rounds):
        for server in found:
            before = peer._proc_cpu(server.proc.pid, db_pids)
            ask(server, expected, requests // rounds)
            after = peer._proc_cpu(server.proc.pid, db_pids)
            app, db = spent[server.name]
            spent[server.name] = (app + after[0] - before[0], db + after[1] - before[1])
    if requests < rounds:
        return {}
    answers = requests // rounds * rounds
    return {name: (app * 1000 / answers, db * 1000 / answers) for name, (app, db) in spent.items()}


def print_profiles(folder: Path, requests: int, top: int) -> None:
    """Calls per answer, and the functions whose own and cumulative time differ most."""
    stats = {path.stem: pstats.Stats(str(path)).stats for path in sorted(folder.glob("*.prof"))}
    for name, entries in stats.items():
        calls = sum(entry[1] for entry in entries.values())
        seconds = sum(entry[2] for entry in entries.values())
        print(f"  {name}: {calls / requests:,.0f} Python calls and {seconds * 1000 / requests:.1f} ms "
              f"of CPU (under the profiler) per answer")
    cold, limit = stats["slugline-cold"], stats["limit"]
    for label, column in (("own time", 2), ("cumulative time", 3)):
        print(f"\n  cold minus limit, by {label} (ms per answer; calls per answer, cold / limit):")
        gaps = sorted(((cold[key][column] - limit.get(key, (0, 0, 0, 0))[column], key) for key in cold),
                      reverse=True)
        for gap, key in gaps[:top]:
            where = f"{pstats.func_std_string(key)}"
            print(f"    {gap * 1000 / requests:7.3f}  {cold[key][1] / requests:8.1f} / "
                  f"{limit.get(key, (0, 0))[1] / requests:8.1f}  {where[-110:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--comments", type=int, default=100, help="the post's comments, when seeding")
    parser.add_argument("--database", help="serve this scratch database (a --keep run's) instead of seeding")
    parser.add_argument("--keep", action="store_true", help="leave the scratch database")
    parser.add_argument("--requests", type=int, default=200, help="measured answers per server (0: profile only)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--profiled", type=int, default=100,
                        help="answers per server under cProfile (0: measure only)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--html", type=Path, help="write each server's first answer to this folder")
    parser.add_argument("--base", type=Path, help="also serve the cold page of this work tree (base-cold)")
    parser.add_argument("--save", type=Path, help="keep the profiles (<server>.prof) in this folder")
    args = parser.parse_args()
    uri = os.environ.get("MONGODB_URI") or sys.exit("MONGODB_URI: the database to use")
    settings.MONGODB_URI = uri
    peer.LOGS.mkdir(parents=True, exist_ok=True)
    if args.database:
        settings.MONGODB_NAME = args.database
        mongo.reset_client()
    else:
        peer.build_slugline(args.comments, seed=1)
    name = settings.MONGODB_NAME
    post = posts.get_published(peer.SLUG)
    if post is None:
        sys.exit(f"{name}: no published post {peer.SLUG!r}")
    expected = peer.Expected.first_page(listers.list_comments(discussion_id=post.id, view="threaded"))
    print(f"database {name}, {post.comment_count:,} comments; load average {os.getloadavg()}", flush=True)
    db_pids = peer.database_pids(uri)
    workdir = Path(tempfile.mkdtemp(prefix="slugline-profile-"))
    try:
        peer.prepare_slugline(workdir, uri)
        if args.base:
            peer.prepare_slugline(workdir, uri, tree=args.base, static=workdir / "static-base")
        found = servers(uri=uri, name=name, workdir=workdir, profile=None, skip=0, base=args.base)
        try:
            for server in found:
                server.start()
                body = ask(server, expected, 1)
                if args.html:
                    args.html.mkdir(parents=True, exist_ok=True)
                    (args.html / f"{server.name}.html").write_bytes(body)
            started = time.time()
            cpu = cpu_per_answer(found, expected, requests=args.requests, rounds=args.rounds, warmup=args.warmup,
                                 db_pids=db_pids)
        finally:
            for server in found:
                server.stop()
        if cpu:
            app = {name: ms for name, (ms, _) in cpu.items()}
            print(f"CPU ms per answer over {args.requests} answers ({time.time() - started:.0f} s; load average "
                  f"{os.getloadavg()}): " + ", ".join(f"{name} {ms:.2f}" for name, ms in app.items())
                  + f"; cold - limit {app['slugline-cold'] - app['limit']:.2f}"
                  + (f"; base - limit {app[peer.BASE] - app['limit']:.2f}" if args.base else ""), flush=True)
            if db_pids:
                print("  the database's CPU ms meanwhile, per answer (FerretDB and PostgreSQL, other clients' "
                      "work included): " + ", ".join(f"{name} {db:.2f}" for name, (_, db) in cpu.items()), flush=True)
        if args.profiled:
            found = servers(uri=uri, name=name, workdir=workdir, profile=workdir, skip=args.warmup, base=args.base)
            try:
                for server in found:
                    server.start()
                    ask(server, expected, args.warmup + args.profiled)
            finally:
                for server in found:
                    server.stop()
            print_profiles(workdir, args.profiled, args.top)
            if args.save:
                args.save.mkdir(parents=True, exist_ok=True)
                for server in found:
                    peer.shutil.copy(workdir / f"{server.name}.prof", args.save)
        if args.base:
            print(f"  (base-cold: the cold page of {args.base}; the differences above are of slugline-cold)")
    finally:
        if not args.keep:
            peer.drop_scratch(name)
        peer.shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
