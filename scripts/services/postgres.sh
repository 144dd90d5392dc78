#!/usr/bin/env bash
# Runs a PostgreSQL cluster of the project's own on loopback, for fault tests that stop or
# crash a server (the shared one on 5432 is never touched). Trust auth, user postgres,
# database postgres.
#
#   scripts/services/postgres.sh start [--port N] [--dir DIR] [--profile default|bench]
#   scripts/services/postgres.sh stop  [--port N] [--dir DIR] [--kill] [--wipe]
#   scripts/services/postgres.sh status [--port N] [--dir DIR]
#
# Defaults: port 15432; dir ${TMPDIR:-/tmp}/idforge-postgres-PORT (cluster in DIR/data).
# `stop --kill` is an immediate shutdown (a crash: recovery runs at the next start).
#
# --profile (start only; the others accept and ignore it):
#   default  the server as the fault tests have always had it: initdb's settings, fsync on.
#   bench    small caches for `npm run bench:db` (bench/db/run.sh), so that an index outgrowing
#            the cache shows at a few million rows, with every setting that decides what a
#            write costs stated (see bench_settings below for each and why). Runtime settings
#            only (-c on the command line, which overrides postgresql.conf and ALTER SYSTEM):
#            one cluster can be started with either profile.
# A server that already answers on the port is reused only if it runs the profile asked for:
# `start --profile bench` checks every bench setting with current_setting() and refuses,
# naming each one that differs, if any does; a plain `start` refuses a server that runs the
# bench profile. Stop it first (`stop --port N`) to change profiles.
set -euo pipefail

cmd="${1:-start}"
[[ $# -gt 0 ]] && shift
port=15432
dir=""
kill=0
wipe=0
profile=default
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --kill) kill=1; shift ;;
    --wipe) wipe=1; shift ;;
    --profile) profile="$2"; shift 2 ;;
    *) echo "postgres.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ "$port" =~ ^[0-9]+$ ]] || { echo "postgres.sh: expected a numeric --port, got '$port'" >&2; exit 1; }
[[ "$port" != 5432 ]] || { echo "postgres.sh: 5432 is the shared server; pick another port" >&2; exit 1; }
[[ "$profile" == default || "$profile" == bench ]] ||
  { echo "postgres.sh: expected --profile default or bench, got '$profile'" >&2; exit 1; }
dir="${dir:-${TMPDIR:-/tmp}/idforge-postgres-$port}"
tag="" # said after "answers on ..." for a profile other than the default
[[ "$profile" == default ]] || tag="$profile profile"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[[ -n "$bin" ]] || { echo "postgres.sh: no PostgreSQL server binaries under /usr/lib/postgresql" >&2; exit 1; }

# The server refuses to run as root: run its tools as the postgres user when we are root.
as_pg() { if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
up() { as_pg "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; }

# The bench profile, as NAME=VALUE in the form SHOW prints them (so the same list starts the
# server and checks a running one).
bench_settings=(
  # The cache the indexes compete for: 32MB is 4,096 pages, outgrown by a random-key primary
  # index at a few million rows (initdb's default is 128MB). Reads that miss it still go through
  # the kernel's page cache (PostgreSQL 15 has no direct I/O): the effect shows in buffer
  # reads/writes, WAL volume and full-page images more than in wall time on a machine with RAM.
  shared_buffers=32MB
  # Frequent checkpoints (30s is the least PostgreSQL allows; at most 256MB of WAL between
  # two): the first change of a page after each checkpoint writes the whole page to the WAL,
  # so keys that touch pages all over an index pay in full-page images, as in production.
  checkpoint_timeout=30s
  max_wal_size=256MB
  full_page_writes=on
  # Full-page images are counted as written, not compressed away (the default, stated).
  wal_compression=off
  # Durable commits, as the numbers claim: fsync of the WAL at every commit.
  fsync=on
  synchronous_commit=on
  # One line per checkpoint in DIR/postgres.log (what started it, buffers written, WAL).
  log_checkpoints=on
  # Marks the server as started with this profile (a custom setting; no effect on the server).
  idforge.profile=bench
)

# NAME=VALUE lines of the running server's values of the bench settings ("(unset)" for one it
# does not have); fails when the server cannot be asked.
live_settings() {
  local names="" kv
  for kv in "${bench_settings[@]}"; do names+="${names:+,}'${kv%%=*}'"; done
  as_pg "$bin/psql" -X -q -A -t -h 127.0.0.1 -p "$port" -U postgres -d postgres -c \
    "SELECT n || '=' || coalesce(current_setting(n, true), '(unset)')
       FROM unnest(ARRAY[$names]) AS n" \
    2>/dev/null
}

# Refuses (exit 1) a running server whose settings are not the profile asked for.
check_profile() {
  local live kv have differ=""
  if ! live="$(live_settings)"; then
    [[ "$profile" == default ]] && return 0 # as before: reuse what answers
    echo "postgres.sh: PostgreSQL answers on 127.0.0.1:$port but its settings cannot be read;" \
      "not reusing it for --profile bench" >&2
    exit 1
  fi
  for kv in "${bench_settings[@]}"; do
    have="$(grep -m1 "^${kv%%=*}=" <<<"$live" || true)"
    [[ "$have" == "$kv" ]] || differ+="${differ:+, }${have:-${kv%%=*}=?} (bench: ${kv#*=})"
  done
  if [[ "$profile" == bench && -n "$differ" ]]; then
    echo "postgres.sh: PostgreSQL already answers on 127.0.0.1:$port without the bench profile:" \
      "$differ. Stop it first (scripts/services/postgres.sh stop --port $port)" >&2
    exit 1
  fi
  if [[ "$profile" == default && -z "$differ" ]]; then
    echo "postgres.sh: PostgreSQL already answers on 127.0.0.1:$port with the bench profile" \
      "(shared_buffers=32MB ...); stop it first" \
      "(scripts/services/postgres.sh stop --port $port) or pass --profile bench" >&2
    exit 1
  fi
  return 0
}

start() {
  if up; then
    check_profile
    echo "postgres.sh: PostgreSQL already answers on 127.0.0.1:$port${tag:+ ($tag)}"
    return 0
  fi
  mkdir -p "$dir"
  [[ "$(id -u)" != 0 ]] || chown postgres: "$dir"
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log" 2>&1 ||
      { echo "postgres.sh: initdb failed; see $dir/initdb.log" >&2; exit 1; }
  fi
  local opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=on" kv
  if [[ "$profile" == bench ]]; then
    for kv in "${bench_settings[@]}"; do opts+=" -c $kv"; done
  fi
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 -o "$opts" start \
    >/dev/null ||
    { echo "postgres.sh: start failed; see $dir/postgres.log" >&2; exit 1; }
  echo "postgres.sh: PostgreSQL answers on 127.0.0.1:$port (cluster in $dir/data${tag:+, $tag})"
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
