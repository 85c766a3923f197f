#!/usr/bin/env bash
# Set-up for the browser tests (tests/browser/), run by `make test`:
#  - Debian's Chromium: installed with apt-get when missing and when running as root.
#    Playwright drives /usr/bin/chromium; `playwright install` (a browser download) is
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

if [ -n "${SLUGLINE_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; then
  :
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "browser set-up: installing Debian's chromium with apt-get (once)..."
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null; }; then
    loud "browser set-up: apt-get could not install chromium: the browser tests will be SKIPPED."
  fi
else
  loud "browser set-up: chromium is missing and this is not root with apt-get: run 'apt-get install chromium' as root, or the browser tests will be SKIPPED."
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
