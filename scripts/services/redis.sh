#!/usr/bin/env bash
# Runs a Redis instance of the project's own on loopback, for fault tests that stop or kill a
# server (the shared Redis on 6379 is never touched). Persistence on (AOF, fsync always), so
# the data a test expects to survive a restart does; `start --no-persist` runs it without any
# (no AOF, no RDB, like many production caches), so a restart comes back empty.
#
#   scripts/services/redis.sh start [--port N] [--dir DIR] [--no-persist]
#   scripts/services/redis.sh stop  [--port N] [--dir DIR] [--kill] [--wipe]
#   scripts/services/redis.sh status [--port N]
#
# Defaults: port 16379; dir ${TMPDIR:-/tmp}/idforge-redis-PORT (AOF, pid and log inside).
# `stop --kill` sends SIGKILL (a crash) instead of SHUTDOWN. Exit status 0 on success.
set -euo pipefail

cmd="${1:-start}"
[[ $# -gt 0 ]] && shift
port=16379
dir=""
kill=0
wipe=0
persist=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --kill) kill=1; shift ;;
    --wipe) wipe=1; shift ;;
    --no-persist) persist=0; shift ;;
    *) echo "redis.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ "$port" =~ ^[0-9]+$ ]] || { echo "redis.sh: expected a numeric --port, got '$port'" >&2; exit 1; }
[[ "$port" != 6379 ]] || { echo "redis.sh: 6379 is the shared Redis; pick another port" >&2; exit 1; }
dir="${dir:-${TMPDIR:-/tmp}/idforge-redis-$port}"
pidfile="$dir/redis.pid"

up() { redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; }

start() {
  if up; then echo "redis.sh: Redis already answers on 127.0.0.1:$port"; return 0; fi
  command -v redis-server >/dev/null || { echo "redis.sh: redis-server is not installed" >&2; exit 1; }
  mkdir -p "$dir"
  local durability=(--appendonly yes --appendfsync always)
  if ((!persist)); then
    # Nothing to load either: files left by an earlier persistent run would bring data back.
    rm -rf "$dir/appendonlydir" "$dir/dump.rdb"
    durability=(--appendonly no)
  fi
  redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --daemonize yes \
    --pidfile "$pidfile" --logfile "$dir/redis.log" --save "" \
    "${durability[@]}" >/dev/null
  for _ in $(seq 1 100); do
    if up; then echo "redis.sh: Redis answers on 127.0.0.1:$port (data in $dir)"; return 0; fi
    sleep 0.1
  done
  echo "redis.sh: Redis did not answer on 127.0.0.1:$port; see $dir/redis.log" >&2
  exit 1
}

stop() {
  if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    local pid
    pid="$(cat "$pidfile")"
    if ((kill)); then kill -KILL "$pid"; else redis-cli -p "$port" shutdown >/dev/null 2>&1 || kill -TERM "$pid"; fi
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    echo "redis.sh: stopped Redis (pid $pid) on 127.0.0.1:$port"
  else
    echo "redis.sh: no Redis of ours on 127.0.0.1:$port"
  fi
  rm -f "$pidfile"
  if ((wipe)); then rm -rf "$dir"; fi
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) if up; then echo "redis.sh: up on $port"; else echo "redis.sh: down on $port"; exit 1; fi ;;
  *) echo "redis.sh: expected start, stop or status, got '$cmd'" >&2; exit 1 ;;
esac
