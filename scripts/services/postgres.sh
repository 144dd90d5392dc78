#!/usr/bin/env bash
# Runs a PostgreSQL cluster of the project's own on loopback, for fault tests that stop or
# crash a server (the shared one on 5432 is never touched). Trust auth, user postgres,
# database postgres.
#
#   scripts/services/postgres.sh start [--port N] [--dir DIR]
#   scripts/services/postgres.sh stop  [--port N] [--dir DIR] [--kill] [--wipe]
#   scripts/services/postgres.sh status [--port N] [--dir DIR]
#
# Defaults: port 15432; dir ${TMPDIR:-/tmp}/idforge-postgres-PORT (cluster in DIR/data).
# `stop --kill` is an immediate shutdown (a crash: recovery runs at the next start).
set -euo pipefail

cmd="${1:-start}"
[[ $# -gt 0 ]] && shift
port=15432
dir=""
kill=0
wipe=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --kill) kill=1; shift ;;
    --wipe) wipe=1; shift ;;
    *) echo "postgres.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ "$port" =~ ^[0-9]+$ ]] || { echo "postgres.sh: expected a numeric --port, got '$port'" >&2; exit 1; }
[[ "$port" != 5432 ]] || { echo "postgres.sh: 5432 is the shared server; pick another port" >&2; exit 1; }
dir="${dir:-${TMPDIR:-/tmp}/idforge-postgres-$port}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[[ -n "$bin" ]] || { echo "postgres.sh: no PostgreSQL server binaries under /usr/lib/postgresql" >&2; exit 1; }

# The server refuses to run as root: run its tools as the postgres user when we are root.
as_pg() { if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
up() { as_pg "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; }

start() {
  if up; then echo "postgres.sh: PostgreSQL already answers on 127.0.0.1:$port"; return 0; fi
  mkdir -p "$dir"
  [[ "$(id -u)" != 0 ]] || chown postgres: "$dir"
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log" 2>&1 ||
      { echo "postgres.sh: initdb failed; see $dir/initdb.log" >&2; exit 1; }
  fi
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=on" start >/dev/null ||
    { echo "postgres.sh: start failed; see $dir/postgres.log" >&2; exit 1; }
  echo "postgres.sh: PostgreSQL answers on 127.0.0.1:$port (cluster in $dir/data)"
}

stop() {
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    local mode=fast
    ((kill)) && mode=immediate
    as_pg "$bin/pg_ctl" -D "$dir/data" -m "$mode" -w stop >/dev/null
    echo "postgres.sh: stopped PostgreSQL on 127.0.0.1:$port ($mode)"
  else
    echo "postgres.sh: no PostgreSQL of ours on 127.0.0.1:$port"
  fi
  if ((wipe)); then rm -rf "$dir"; fi
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) if up; then echo "postgres.sh: up on $port"; else echo "postgres.sh: down on $port"; exit 1; fi ;;
  *) echo "postgres.sh: expected start, stop or status, got '$cmd'" >&2; exit 1 ;;
esac
