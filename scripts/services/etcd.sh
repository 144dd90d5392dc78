#!/usr/bin/env bash
# Installs (from Debian's etcd-server package) and runs a single-member etcd on loopback for
# the tests. Idempotent: `start` does nothing when an etcd already answers on the port.
#
#   scripts/services/etcd.sh start  [--port N] [--peer-port N] [--dir DIR] [--timeout S]
#   scripts/services/etcd.sh stop   [--port N] [--dir DIR] [--wipe]
#   scripts/services/etcd.sh status [--port N]
#
# Defaults (also from the environment): port IDFORGE_ETCD_PORT or 2379; peer port
# IDFORGE_ETCD_PEER_PORT or port+1; dir IDFORGE_ETCD_DIR or ${TMPDIR:-/tmp}/idforge-etcd-PORT
# (data in DIR/data, log in DIR/etcd.log, pid in DIR/etcd.pid); timeout IDFORGE_ETCD_TIMEOUT
# or 30 s. Fault tests start their own instance on another port and stop it by the same port.
# `stop` only ends the process this script started (from its pid file); `--wipe` also deletes
# DIR, so the next start has an empty store. Exit status: 0 on success, 1 on failure.
set -euo pipefail

cmd="${1:-start}"
[[ $# -gt 0 ]] && shift
port="${IDFORGE_ETCD_PORT:-2379}"
peer_port="${IDFORGE_ETCD_PEER_PORT:-}"
dir="${IDFORGE_ETCD_DIR:-}"
timeout="${IDFORGE_ETCD_TIMEOUT:-30}"
wipe=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --peer-port) peer_port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --wipe) wipe=1; shift ;;
    *) echo "etcd.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ "$port" =~ ^[0-9]+$ ]] || { echo "etcd.sh: expected a numeric --port, got '$port'" >&2; exit 1; }
peer_port="${peer_port:-$((port + 1))}"
dir="${dir:-${TMPDIR:-/tmp}/idforge-etcd-$port}"
pidfile="$dir/etcd.pid"
log="$dir/etcd.log"
url="http://127.0.0.1:$port"

healthy() {
  curl -fsS --max-time 1 "$url/health" 2>/dev/null | grep -q '"health":"true"'
}

install_etcd() {
  command -v etcd >/dev/null 2>&1 && return 0
  echo "etcd.sh: installing Debian's etcd-server package"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends etcd-server >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends etcd-server >/dev/null
  fi
  command -v etcd >/dev/null 2>&1 || { echo "etcd.sh: etcd is still missing" >&2; exit 1; }
}

our_pid() {
  [[ -f "$pidfile" ]] || return 1
  local pid
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "etcd" && echo "$pid"
}

start() {
  if healthy; then
    echo "etcd.sh: etcd already answers at $url"
    return 0
  fi
  install_etcd
  if our_pid >/dev/null; then
    echo "etcd.sh: etcd (pid $(our_pid)) is starting at $url; waiting"
  else
    mkdir -p "$dir"
    # ETCD_* variables of the caller's environment would override these flags.
    # shellcheck disable=SC2046
    env $(env | sed -n 's/^\(ETCD_[A-Za-z0-9_]*\)=.*/-u \1/p') setsid nohup etcd \
      --name "idforge-$port" \
      --data-dir "$dir/data" \
      --listen-client-urls "$url" \
      --advertise-client-urls "$url" \
      --listen-peer-urls "http://127.0.0.1:$peer_port" \
      --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
      --initial-cluster "idforge-$port=http://127.0.0.1:$peer_port" \
      --initial-cluster-state new \
      >>"$log" 2>&1 </dev/null &
    echo $! >"$pidfile"
    echo "etcd.sh: started etcd (pid $!) at $url, data in $dir/data, log in $log"
  fi
  local deadline=$((SECONDS + timeout))
  local started
  started="$(cat "$pidfile")"
  until healthy; do
    # Alive by kill -0 alone: while env, setsid and nohup exec one another, /proc/PID/cmdline
    # can read empty for an instant, and the name check of our_pid then failed a healthy start
    # ("exited before answering" with nothing new in the log, seen once in CI under load).
    if ! kill -0 "$started" 2>/dev/null; then
      echo "etcd.sh: etcd exited before answering; last lines of $log:" >&2
      tail -n 20 "$log" >&2 || true
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "etcd.sh: etcd did not answer $url/health within ${timeout} s; see $log" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "etcd.sh: etcd is healthy at $url"
}

stop() {
  local pid
  if pid="$(our_pid)"; then
    kill -TERM "$pid"
    local deadline=$((SECONDS + timeout))
    while kill -0 "$pid" 2>/dev/null; do
      if ((SECONDS >= deadline)); then kill -KILL "$pid" 2>/dev/null || true; fi
      sleep 0.1
    done
    echo "etcd.sh: stopped etcd (pid $pid) at $url"
  elif healthy; then
    echo "etcd.sh: an etcd this script did not start answers at $url; leaving it" >&2
    exit 1
  else
    echo "etcd.sh: no etcd running at $url"
  fi
  rm -f "$pidfile"
  if ((wipe)); then rm -rf "$dir" && echo "etcd.sh: deleted $dir"; fi
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) if healthy; then echo "etcd.sh: healthy at $url"; else echo "etcd.sh: down at $url"; exit 1; fi ;;
  *) echo "etcd.sh: expected start, stop or status, got '$cmd'" >&2; exit 1 ;;
esac
