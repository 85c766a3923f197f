#!/usr/bin/env bash
# Set-up for the browser tests (tests/browser/), run by `make test`:
#  - Debian's Chromium in its headless build, chromium-headless-shell (the browser
#    without its window's own interface, which the full chromium runs in a renderer of
#    its own for every window even when headless: three times the CPU per test), with
#    apt-get when missing and running as root; Debian's full chromium serves when only
#    it is there. Playwright drives it; `playwright install` (a browser download) is
#    never used.
#  - axe-core from the npm registry, pinned in tools/axe/package-lock.json, into
#    tools/axe/node_modules/.
# It never fails the build: whatever cannot be installed makes the browser tests skip,
# and both this script and pytest say so loudly.
set -u
cd "$(dirname "$0")/.."

loud() {
  printf '\n%s\n!!! %s\n%s\n\n' "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" "$*" \
    "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2
}

if [ -n "${SLUGLINE_CHROMIUM:-}" ] || command -v chromium-headless-shell >/dev/null 2>&1; then
  :
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "browser set-up: installing Debian's chromium-headless-shell with apt-get (once)..."
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get install -y -qq --no-install-recommends chromium-headless-shell fonts-liberation >/dev/null 2>&1 \
         || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium-headless-shell fonts-liberation >/dev/null; }; }; then
    if command -v chromium >/dev/null 2>&1; then
      loud "browser set-up: apt-get could not install chromium-headless-shell: the browser tests use the full chromium (slower)."
    else
      loud "browser set-up: apt-get could not install chromium-headless-shell: the browser tests will be SKIPPED."
    fi
  fi
elif command -v chromium >/dev/null 2>&1; then
  echo "browser set-up: the browser tests use the full chromium; 'apt-get install chromium-headless-shell' (as root) makes them faster."
else
  loud "browser set-up: Chromium is missing and this is not root with apt-get: run 'apt-get install chromium-headless-shell' as root, or the browser tests will be SKIPPED."
fi

# Fonts for Hindi (Devanagari) and Vietnamese (stacked diacritics): without them
# chromium draws empty boxes and the screenshots of tests/browser/ show nothing real.
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=hi family 2>/dev/null)" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "browser set-up: installing Debian's fonts-noto-core (Devanagari, Vietnamese) with apt-get (once)..."
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -qq --no-install-recommends fonts-noto-core >/dev/null \
      || { apt-get update -qq && apt-get install -y -qq --no-install-recommends fonts-noto-core >/dev/null; }; } \
      || loud "browser set-up: apt-get could not install fonts-noto-core: Hindi pages will show empty boxes in screenshots."
  else
    loud "browser set-up: no Devanagari font: run 'apt-get install fonts-noto-core' as root, or Hindi screenshots show empty boxes."
  fi
fi

axe=tools/axe/node_modules/axe-core/axe.min.js
if [ ! -f "$axe" ] || [ tools/axe/package-lock.json -nt "$axe" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "browser set-up: installing axe-core with npm ci (tools/axe)..."
    npm ci --prefix tools/axe --no-audit --no-fund --loglevel=error >/dev/null && touch "$axe" \
      || loud "browser set-up: npm ci failed in tools/axe: the accessibility checks will FAIL."
  else
    loud "browser set-up: npm is missing: axe-core cannot be installed; the accessibility checks will FAIL."
  fi
fi
exit 0
