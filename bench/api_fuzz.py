"""Fuzz the JSON API against its own OpenAPI document with schemathesis: every
operation of /api/v1/openapi.json gets generated requests, valid and invalid, and
each answer is checked: no 5xx, a documented status, content type and headers, a
body that matches its schema, invalid input refused with a 4xx, an undocumented
method answered 405 with `Allow`.

Run it with tools/api_fuzz.sh (it installs the pinned schemathesis into its own
virtualenv first); docs/api.md says more. Without --url it starts a scratch site
(gunicorn on a loopback port, its own MongoDB database on MONGODB_URI, demo content,
an editor's read-write token) and drops it afterwards; with --url it fuzzes a site
that is running (pass --token for the write and moderation endpoints). Two passes:
one with every parameter generated (unknown posts and comments: 404 paths), one on
a real post and a comment of the token's own account (the writes that succeed).
Traffic goes to 127.0.0.1 only, and every pass is bounded (--max-examples).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from bench.harness import NO_RATE_LIMITS, Site

CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,"
          "response_schema_conformance,negative_data_rejection,unsupported_method,allow_header_conformance")
# Made in the scratch site: an editor with a read-write token, two comments of theirs
# (one to read and edit, one to delete) and a reader's comment (to moderate).
SETUP = """
import json
from django.contrib.auth.models import Group
from api import tokens
from cms import posts
from cms.authors import create_author
from comments import services
from comments.records import CommentAuthor
from dashboard.permissions import EDITORS_GROUP
user = create_author(username="fuzzer", display_name="Fuzzer")
user.groups.add(Group.objects.get_or_create(name=EDITORS_GROUP)[0])
post = posts.newest_published(skip=0, limit=1)[0]
_, secret = tokens.create_token(user_id=user.pk, name="fuzz", scope=tokens.READ_WRITE, created_by="fuzz")
def comment(text, author):
    return services.post_comment(post=post, text=text, author=author, ip="192.0.2.1").comment
mine = comment("The fuzzer's own comment", CommentAuthor(id=user.pk, name="Fuzzer"))
doomed = comment("The fuzzer's comment to delete", CommentAuthor(id=user.pk, name="Fuzzer"))
theirs = comment("A reader's comment to moderate", CommentAuthor(id=None, name="Rex"))
print(json.dumps({"token": secret, "post": post.slug, "comment": mine.slug, "doomed": doomed.slug,
                  "moderated": str(theirs.id)}))
"""


def _table(values: dict[str, str]) -> str:
    return "{" + ", ".join(f"{key} = {json.dumps(value)}" for key, value in values.items()) + "}"


def run_pass(schemathesis: str, *, url: str, token: str, name: str, parameters: dict[str, str],
             deleted: dict[str, str], max_examples: int, seed: int, report: Path) -> int:
    """One schemathesis run over the whole document (`parameters` fixed, and `deleted`
    for DELETE); its exit code (0: nothing found)."""
    lines = ["[parameters]"] + [f"{key} = {json.dumps(value)}" for key, value in parameters.items()]
    if deleted:
        lines += ["[[operations]]", 'include-method = "DELETE"', f"parameters = {_table(deleted)}"]
    config = report / f"{name}.toml"
    config.write_text("\n".join(lines) + "\n")
    command = [
        schemathesis, "--config-file", str(config), "run", f"{url}/api/v1/openapi.json",
        "--checks", CHECKS, "--header", f"Authorization: Bearer {token}", "--max-examples", str(max_examples),
        "--seed", str(seed), "--phases", "examples,coverage,fuzzing", "--request-timeout", "30",
        "--report", "junit", "--report-junit-path", str(report / f"{name}.xml"), "--no-color",
    ]
    print(f"\n=== pass '{name}': {' '.join(command[:5])} … (parameters: {parameters or 'all generated'})",
          flush=True)
    # Run in the report folder: schemathesis keeps its cache of failures (replayed
    # first on the next run) in .schemathesis/ of the current directory.
    return subprocess.run(command, cwd=report).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--schemathesis", default="schemathesis", help="the schemathesis command")
    parser.add_argument("--url", help="a running site (default: start a scratch one)")
    parser.add_argument("--token", default="", help="an editor's read-write API token (with --url)")
    parser.add_argument("--post", default="", help="a post's slug (with --url)")
    parser.add_argument("--comment", default="", help="the slug path of the token's own comment (with --url)")
    parser.add_argument("--max-examples", type=int, default=60, help="cases per operation and phase")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--report", default="var/fuzz", help="where the JUnit reports and configs go")
    args = parser.parse_args()
    report = Path(args.report).resolve()
    if "/" in args.schemathesis:  # a path, from here: it runs in the report folder
        args.schemathesis = str(Path(args.schemathesis).resolve())
    report.mkdir(parents=True, exist_ok=True)
    site = None
    if args.url:
        url = args.url.rstrip("/")
        made = {"token": args.token, "post": args.post, "comment": args.comment, "doomed": "", "moderated": ""}
    else:
        site = Site(mongodb_uri=os.environ["MONGODB_URI"], name=f"slugline_fuzz_{uuid.uuid4().hex[:8]}")
        print(f"Starting a scratch site on {site.url} (MongoDB database {site.name})…", flush=True)
        site.prepare(posts=3, comments=20)
        made = json.loads(site.manage("shell", "-c", SETUP).strip().splitlines()[-1])
        site.start(**NO_RATE_LIMITS, API_RATE_PER_IP="0", API_RATE_PER_TOKEN="0")
        url = site.url
    try:
        common = {"url": url, "token": made["token"], "max_examples": args.max_examples, "seed": args.seed,
                  "report": report}
        codes = [run_pass(args.schemathesis, name="generated", parameters={}, deleted={}, **common)]
        if made["post"]:
            real = {"post_slug": made["post"], "comment_path": made["comment"], "comment_id": made["moderated"]}
            real = {key: value for key, value in real.items() if value}
            deleted = {**real, "comment_path": made["doomed"]} if made["doomed"] else {}
            codes.append(run_pass(args.schemathesis, name="on-a-post", parameters=real, deleted=deleted, **common))
    finally:
        if site is not None:
            site.stop()
            errors = site.log().count("Traceback (most recent call last)")
            print(f"\nThe site logged {errors} traceback(s)" + (f"; the last:\n{site.failures()}" if errors else "."))
            site.drop()
    print(f"JUnit reports: {report}/; schemathesis exit codes: {codes}")
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
