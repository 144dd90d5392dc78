#!/usr/bin/env bash
# npm run bench:db: `idforge bench db` against a PostgreSQL and a MariaDB of the project's own,
# both started with small caches (the bench profile of scripts/services/postgres.sh and
# mariadb.sh), so that a primary index outgrowing the cache shows at a few million rows.
#
#   npm run bench:db                                   # 1,000,000 rows, every scheme, both engines
#   npm run bench:db -- --rows 3000000 --schemes bigint,uuidv4
#   npm run bench:db -- --engines postgres --batch 500 --keep --keep-servers
#   npm run bench:db -- --dry-run                      # print the commands, run nothing
#
# For each engine in turn (one at a time: the other server is not running during a load,
# unless --keep-servers left it up):
#   1. starts its server with --profile bench: PostgreSQL on 127.0.0.1:15460, MariaDB on
#      127.0.0.1:13360 (the shared servers on 5432 and 3306 are never touched). A server already
#      on the port is reused if it runs the bench profile; one that does not is left alone and
#      the engine is skipped (the service script names the settings that differ);
#   2. creates the database `bench` on it (if missing);
#   3. runs `idforge bench db --store URL --rows N --out bench/db/results/ENGINE-N ARGS...` with
#        postgres://postgres@127.0.0.1:15460/bench -> bench/db/results/postgres-N
#        mysql://root@127.0.0.1:13360/bench        -> bench/db/results/mariadb-N
#      and says where the report is (report.md, report.json and the charts);
#   4. stops the server and deletes its data directory (stop --wipe), so every run starts from
#      a fresh cluster with a cold cache; also on failure and on Ctrl-C (trap). --keep-servers
#      leaves the servers and their data running (with --keep, the bench tables too) and prints
#      how to stop them.
# An engine that fails does not stop the other; the exit status is 1 if any failed. Ctrl-C
# (or SIGTERM): the CLI stops after its current batch and drops its tables, no further engine
# runs, the servers are stopped; exit 130 (143).
#
# Options of this script (everything else goes to `idforge bench db` unchanged: --schemes LIST,
# --batch N, --keep, --force, ...; --store and --out are set here and refused):
#   --rows N          rows per table, passed on (default 1000000)
#   --engines LIST    postgres, mariadb or both, comma-separated (default postgres,mariadb)
#   --data-dir DIR    where the servers' data directories go (default: the service scripts'
#                     ${TMPDIR:-/tmp}/idforge-{postgres,mariadb}-PORT); pick a directory on
#                     a real disk (on tmpfs there is no disk to miss the cache to, and no
#                     O_DIRECT)
#   --keep-servers    do not stop the servers at the end
#   --dry-run         print every command instead of running it
#   -h, --help        this text
#
# The CLI: the server package's build (packages/server/dist/bin/idforge-server.js) when it is
# newer than every source of the three packages (npm run build), else the sources through the
# repository's loader (node --import ./scripts/dev-loader.mjs ...), as bench:service does;
# the line "cli:" says which. Results go to bench/db/results/ (ignored by git).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

PG_PORT=15460
MY_PORT=13360
rows=1000000
engines="postgres,mariadb"
data_dir=""
keep_servers=0
dry=0
pass=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "bench:db: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --rows) [[ $# -ge 2 ]] || die "--rows needs a value"; rows="$2"; shift 2 ;;
    --rows=*) rows="${1#*=}"; shift ;;
    --engines) [[ $# -ge 2 ]] || die "--engines needs a value"; engines="$2"; shift 2 ;;
    --engines=*) engines="${1#*=}"; shift ;;
    --data-dir) [[ $# -ge 2 ]] || die "--data-dir needs a value"; data_dir="$2"; shift 2 ;;
    --data-dir=*) data_dir="${1#*=}"; shift ;;
    --keep-servers) keep_servers=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --store | --store=* | --out | --out=*) die "$1 is set by this script (see --help)" ;;
    *) pass+=("$1"); shift ;;
  esac
done
[[ "$rows" =~ ^[1-9][0-9]*$ ]] || die "expected a positive whole --rows, got '$rows'"
selected=()
IFS=',' read -r -a wanted <<<"$engines"
for e in "${wanted[@]}"; do
  case "$e" in
    postgres | mariadb) selected+=("$e") ;;
    *) die "expected --engines postgres, mariadb or both, got '$e'" ;;
  esac
done
[[ ${#selected[@]} -gt 0 ]] || die "--engines is empty"
[[ -z "$data_dir" ]] || data_dir="$(realpath -m "$data_dir")" # the service scripts create it

# Per engine (postgres, mariadb: also the names of their service scripts): port, store URL.
port_of() { if [[ $1 == postgres ]]; then echo "$PG_PORT"; else echo "$MY_PORT"; fi; }
url_of() {
  if [[ $1 == postgres ]]; then echo "postgres://postgres@127.0.0.1:$PG_PORT/bench"
  else echo "mysql://root@127.0.0.1:$MY_PORT/bench"; fi
}
# `service ENGINE start|stop ARGS...`: the engine's service script on its port (and in
# --data-dir if given), through run.
service() {
  local e="$1" action="$2"
  shift 2
  local args=(--port "$(port_of "$e")")
  [[ -z "$data_dir" ]] || args+=(--dir "$data_dir/$e-$(port_of "$e")")
  run bash "scripts/services/$e.sh" "$action" "${args[@]}" "$@"
}

# Signals. Every command runs in the background while this shell waits for it, so that a
# signal cuts the wait short and runs the trap at once: bash runs no trap after a foreground
# command that handled the signal itself (the CLI stops cleanly on Ctrl-C and exits 130, so
# the next engine would start). Background commands of a script ignore SIGINT: a Ctrl-C does
# not cut a server's start or stop in half. The CLI still gets it (Node resets the signal
# handling it inherits), from the terminal or forwarded by the trap (for a signal sent to this
# script alone: kill PID, npm's forwarding); it drops its tables and writes no report. Then no
# further command starts, and the EXIT trap stops the servers.
child=""
signalled=0
interrupted=0
cleaning=0
on_signal() {
  signalled=1
  ((interrupted)) || echo "bench:db: $1: stopping (and stopping the servers)" >&2
  interrupted=$2
  [[ -z "$child" ]] || kill -INT "$child" 2>/dev/null || true
}
trap 'on_signal SIGINT 130' INT
trap 'on_signal SIGTERM 143' TERM
stop_if_interrupted() { if ((interrupted && !cleaning)); then exit "$interrupted"; fi; }

# Prints a command (an argument with characters a shell would read is quoted); runs it unless
# --dry-run, and returns its exit status. Starts nothing after a signal, but the cleanup's stops.
run() {
  local a line="+" status
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./:@=,+%-]+$ ]]; then line+=" $a"
    else line+=" '${a//\'/\'\\\'\'}'"; fi
  done
  echo "$line"
  if ((dry)); then return 0; fi
  stop_if_interrupted
  "$@" &
  child=$!
  while :; do
    signalled=0
    status=0
    wait "$child" 2>/dev/null || status=$?
    ((signalled)) || break # else the wait was cut short by a signal: the child runs on
  done
  child=""
  return "$status"
}

create_db() {
  if [[ $1 == postgres ]]; then
    # Trust auth over TCP (the service script's initdb -A trust); CREATE DATABASE cannot run
    # in a transaction or take IF NOT EXISTS, hence the look-up first.
    local exists=""
    ((dry)) || exists="$(psql -X -A -t -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres \
      -c "SELECT 1 FROM pg_database WHERE datname = 'bench'")"
    [[ "$exists" == 1 ]] ||
      run psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c 'CREATE DATABASE bench'
  else
    run mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$MY_PORT" -u root \
      -e 'CREATE DATABASE IF NOT EXISTS bench'
  fi
}

# The CLI: the build when it is up to date, else the sources through scripts/dev-loader.mjs.
built=packages/server/dist/bin/idforge-server.js
if [[ -f $built && -z "$(find packages/*/src -type f -newer "$built" -print -quit)" ]]; then
  cli=(node "$built")
  echo "cli: $built (up to date with the sources)"
else
  cli=(node --import ./scripts/dev-loader.mjs packages/server/src/bin/idforge-server.ts)
  echo "cli: the sources through scripts/dev-loader.mjs ($([[ -f $built ]] &&
    echo 'the build is older than the sources' || echo 'no build'); npm run build to use a build)"
fi

# Servers this script started (or reused with the bench profile) and has not stopped yet.
declare -A running=()
stop_server() {
  local e="$1"
  [[ -n "${running[$e]:-}" ]] || return 0
  service "$e" stop --wipe || true
  unset "running[$e]"
}
cleanup() {
  local e
  cleaning=1
  if ((keep_servers)); then
    for e in "${!running[@]}"; do
      echo "bench:db: left $e running: $(url_of "$e"); stop it with:"
      dry=1 service "$e" stop --wipe
    done
    return 0
  fi
  for e in "${!running[@]}"; do stop_server "$e"; done
}
trap cleanup EXIT

failed=()
reports=()
for e in "${selected[@]}"; do
  out="bench/db/results/$e-$rows"
  echo
  echo "== $e: $rows rows -> $out"
  # A start that fails (e.g. a server already on the port without the bench profile) leaves
  # nothing of ours to stop. A start is not cut short by Ctrl-C: what it started is stopped.
  if ! service "$e" start --profile bench; then
    stop_if_interrupted
    failed+=("$e (server did not start)")
    continue
  fi
  running[$e]=1
  stop_if_interrupted
  if ! create_db "$e"; then
    stop_if_interrupted
    failed+=("$e (could not create the database bench)")
    stop_server "$e"
    continue
  fi
  status=0
  run "${cli[@]}" bench db --store "$(url_of "$e")" --rows "$rows" --out "$out" "${pass[@]}" ||
    status=$?
  stop_if_interrupted
  if ((status == 0)); then
    reports+=("$e: $out/")
    if ((!dry)); then
      if [[ -f "$out/report.md" ]]; then echo "bench:db: $e report: $out/report.md"
      else echo "bench:db: $e: idforge bench db succeeded but wrote no $out/report.md" >&2; fi
    fi
  elif ((status == 130 || status == 143)); then
    # The CLI was interrupted by a signal this script did not get (sent to it alone).
    echo "bench:db: idforge bench db was interrupted during $e; stopping" >&2
    exit "$status"
  else
    failed+=("$e (idforge bench db exited $status)")
  fi
  ((keep_servers)) || stop_server "$e"
done

echo
if [[ ${#reports[@]} -gt 0 ]]; then
  echo "bench:db: reports$( ((dry)) && echo ' (dry run: would be)'):"
  for r in "${reports[@]}"; do echo "  $r"; done
fi
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "bench:db: failed: ${failed[*]}" >&2
  exit 1
fi
