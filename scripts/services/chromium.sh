#!/usr/bin/env bash
# Installs Debian's Chromium for the dashboard's browser test (test/service/dashboard.test.ts,
# driven by playwright-core with executablePath /usr/bin/chromium: Playwright's own browser
# download cannot work on a machine without internet). Idempotent: exits 0 at once when
# /usr/bin/chromium (or IDFORGE_CHROMIUM) exists. Exit status: 0 when Chromium is installed,
# 1 when it could not be.
#
#   scripts/services/chromium.sh
set -euo pipefail

bin="${IDFORGE_CHROMIUM:-/usr/bin/chromium}"
if [[ -x "$bin" ]]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium.sh: $bin is missing and there is no apt-get to install Debian's chromium package" >&2
  exit 1
fi
if [[ "$(id -u)" -ne 0 ]]; then
  echo "chromium.sh: $bin is missing; installing Debian's chromium package needs root (run: sudo apt-get install -y chromium)" >&2
  exit 1
fi

echo "chromium.sh: $bin is missing; installing Debian's chromium package (this takes a minute)"
export DEBIAN_FRONTEND=noninteractive
apt_install() {
  apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-confold chromium fonts-dejavu-core >/dev/null
}
if ! apt_install; then
  echo "chromium.sh: first attempt failed; refreshing the package lists and retrying"
  apt-get update >/dev/null
  apt_install || { echo "chromium.sh: apt-get install chromium failed" >&2; exit 1; }
fi
[[ -x "$bin" ]] || { echo "chromium.sh: the chromium package is installed but $bin is still missing" >&2; exit 1; }
echo "chromium.sh: installed $("$bin" --version 2>/dev/null || echo chromium) at $bin"
