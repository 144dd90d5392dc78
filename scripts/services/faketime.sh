#!/usr/bin/env bash
# Installs Debian's libfaketime (packages faketime and libfaketime) for the tests that step a
# real process's wall clock: LD_PRELOAD=$(scripts/services/faketime.sh path) with
# FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1 and FAKETIME_DONT_FAKE_MONOTONIC=1. Idempotent:
# `install` does nothing when the library is already there. Nothing runs in the background.
#
#   scripts/services/faketime.sh install   install if missing, then print the library's path
#   scripts/services/faketime.sh path      print the library's path; exit 1 if missing
#   scripts/services/faketime.sh status    say whether it is installed; exit 1 if missing
#
# The library is IDFORGE_LIBFAKETIME if set, else Debian's multiarch path. Exit status: 0 on
# success, 1 on failure.
set -euo pipefail

cmd="${1:-install}"
[[ $# -gt 0 ]] && shift
[[ $# -eq 0 ]] || { echo "faketime.sh: unknown argument '$1'" >&2; exit 1; }

lib_path() {
  if [[ -n "${IDFORGE_LIBFAKETIME:-}" ]]; then
    echo "$IDFORGE_LIBFAKETIME"
    return
  fi
  local arch
  arch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")"
  echo "/usr/lib/$arch/faketime/libfaketime.so.1"
}

lib="$(lib_path)"

install() {
  if [[ -f "$lib" ]]; then
    echo "$lib"
    return 0
  fi
  echo "faketime.sh: installing Debian's faketime and libfaketime packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends faketime libfaketime >/dev/null 2>&1; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends faketime libfaketime >/dev/null
  fi
  [[ -f "$lib" ]] || { echo "faketime.sh: $lib is still missing" >&2; exit 1; }
  echo "$lib"
}

case "$cmd" in
  install) install ;;
  path) [[ -f "$lib" ]] && echo "$lib" || { echo "faketime.sh: $lib is missing" >&2; exit 1; } ;;
  status)
    if [[ -f "$lib" ]]; then echo "faketime.sh: installed at $lib"; else echo "faketime.sh: $lib is missing"; exit 1; fi ;;
  *) echo "faketime.sh: expected install, path or status, got '$cmd'" >&2; exit 1 ;;
esac
