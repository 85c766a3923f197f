#!/usr/bin/env bash
# Set-up for the tests of the Redis cache backend (tests/integration/comments/test_comments_fragments.py), run
# by `make test`: Debian's redis-server, installed with apt-get when missing and when
# running as root. The tests start their own redis-server on a free loopback port and
# stop it at the end; nothing here starts a server.
# It never fails the build: without redis-server those tests are skipped, and both this
# script and pytest say so loudly.
set -u

loud() {
  printf '\n%s\n!!! %s\n%s\n\n' "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" "$*" \
    "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
}

if [ -n "${SLUGLINE_REDIS_SERVER:-}" ] || command -v redis-server >/dev/null 2>&1; then
  :
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis set-up: installing Debian's redis-server with apt-get (once)..."
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null; }; then
    loud "redis set-up: apt-get could not install redis-server: the Redis cache tests will be SKIPPED."
  fi
  # The package's own service is not wanted: the tests start theirs on a free port.
  command -v systemctl >/dev/null 2>&1 && systemctl disable --now redis-server >/dev/null 2>&1 || true
else
  loud "redis set-up: redis-server is missing and this is not root with apt-get: run 'apt-get install redis-server' as root, or the Redis cache tests will be SKIPPED."
fi
exit 0
