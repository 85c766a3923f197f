#!/usr/bin/env bash
# Set-up for PyICU (requirements.txt; comments/internal/unicode_text.py: Unicode's confusable
# skeletons, default-ignorable code points and IDNA), run by make before pip: PyICU is
# built from source against the system's ICU, so pip needs ICU's headers and pkg-config.
# Debian's libicu-dev and pkg-config are installed with apt-get when missing and when
# running as root; otherwise this says what to install, and pip's build would fail.
set -u

if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists icu-i18n 2>/dev/null; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "icu set-up: installing Debian's libicu-dev and pkg-config with apt-get (once; PyICU builds against them)..."
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y -qq --no-install-recommends libicu-dev pkg-config >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends libicu-dev pkg-config >/dev/null; }; } \
    && exit 0
  echo "icu set-up: apt-get could not install libicu-dev and pkg-config: PyICU will not build." >&2
  exit 1
fi
echo "icu set-up: ICU's headers are missing: install Debian's libicu-dev and pkg-config (or your system's ICU development package) before 'make', or PyICU will not build." >&2
exit 1
