#!/usr/bin/env bash
# Fuzz the JSON API against its OpenAPI document (bench/api_fuzz.py; docs/api.md).
# schemathesis, pinned here, goes into its own virtualenv (var/fuzz-venv/), made on
# the first run: its dependencies never touch the project's .venv/ and its pins.
# Needs MONGODB_URI (a scratch database is made and dropped), or pass --url to fuzz a
# running site. Arguments go to bench/api_fuzz.py (--max-examples, --seed, --url, ...).
set -eu
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION=4.32.5
FUZZ_VENV=var/fuzz-venv
if ! "$FUZZ_VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "api_fuzz: installing schemathesis==$SCHEMATHESIS_VERSION into $FUZZ_VENV/ (once)..."
  python3 -m venv "$FUZZ_VENV"
  "$FUZZ_VENV/bin/pip" install --disable-pip-version-check -q "schemathesis==$SCHEMATHESIS_VERSION"
fi
exec .venv/bin/python -m bench.api_fuzz --schemathesis "$FUZZ_VENV/bin/schemathesis" "$@"
