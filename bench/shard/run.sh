#!/usr/bin/env bash
# npm run bench:shard: the salted-shard-key demonstration (bench/shard/main.ts) on a PostgreSQL
# of the project's own, started fresh on 127.0.0.1:15470 (the shared server on 5432 is never
# touched) and stopped and wiped at the end, also on failure and on Ctrl-C.
#
#   npm run bench:shard                                      # 1,000,000 rows, 16 buckets, 8 partitions
#   npm run bench:shard -- --rows 200000 --buckets 64 --partitions 16
#   npm run bench:shard -- --dry-run                         # print the commands, run nothing
#
# Steps:
#   1. scripts/services/postgres.sh start --port 15470 (default profile: initdb's settings).
#      A server already answering there is refused: a fresh cluster every run, so the
#      statistics hold this run's inserts only (stop it: scripts/services/postgres.sh stop
#      --port 15470 --wipe);
#   2. node --import ./scripts/dev-loader.mjs bench/shard/main.ts --url postgres://postgres@127.0.0.1:15470/postgres
#      with the options below: prints the per-partition inserts and the time-range reads, and
#      writes bench/shard/results/partition-ROWS-BUCKETS-PARTITIONS.{json,svg} (ignored by git);
#   3. scripts/services/postgres.sh stop --port 15470 --wipe (trap on EXIT, INT and TERM).
#
# Options (passed to main.ts): --rows N, --buckets B, --partitions P, --out DIR, --keep; and
#   --data-dir DIR   where the cluster goes (default: the service script's
#                    ${TMPDIR:-/tmp}/idforge-postgres-15470)
#   --dry-run        print every command instead of running it
#   -h, --help       this text
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

PORT=15470
data_dir=""
dry=0
pass=()

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "bench:shard: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --data-dir) [[ $# -ge 2 ]] || die "--data-dir needs a value"; data_dir="$2"; shift 2 ;;
    --data-dir=*) data_dir="${1#*=}"; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --url | --url=*) die "$1 is set by this script (see --help)" ;;
    *) pass+=("$1"); shift ;;
  esac
done
[[ -z "$data_dir" ]] || data_dir="$(realpath -m "$data_dir")"

service_args=(--port "$PORT")
[[ -z "$data_dir" ]] || service_args+=(--dir "$data_dir")

# Every command runs in the background while this shell waits, so a signal cuts the wait short
# and the trap runs at once (bash runs no trap while a foreground child runs); the child gets
# the signal forwarded (main.ts stops after its current batch and drops its schema).
child=""
interrupted=0
on_signal() {
  ((interrupted)) || echo "bench:shard: $1: stopping (and stopping the server)" >&2
  interrupted=$2
  [[ -z "$child" ]] || kill -INT "$child" 2>/dev/null || true
}
trap 'on_signal SIGINT 130' INT
trap 'on_signal SIGTERM 143' TERM

run() {
  local a line="+" status
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./:@=,+%-]+$ ]]; then line+=" $a"
    else line+=" '${a//\'/\'\\\'\'}'"; fi
  done
  echo "$line"
  if ((dry)); then return 0; fi
  "$@" &
  child=$!
  status=0
  while :; do
    wait "$child" 2>/dev/null && status=0 || status=$?
    # A wait cut short by a signal returns > 128 while the child still runs: wait again.
    kill -0 "$child" 2>/dev/null || break
  done
  child=""
  return "$status"
}

started=0
cleanup() {
  if ((started)); then
    started=0
    run bash scripts/services/postgres.sh stop "${service_args[@]}" --wipe || true
  fi
}
trap cleanup EXIT

if ((!dry)) && bash scripts/services/postgres.sh status --port "$PORT" >/dev/null 2>&1; then
  die "a PostgreSQL already answers on 127.0.0.1:$PORT; stop it first (bash scripts/services/postgres.sh stop --port $PORT --wipe)"
fi
started=1
run bash scripts/services/postgres.sh start "${service_args[@]}"
((interrupted == 0)) || exit "$interrupted"
status=0
run node --import ./scripts/dev-loader.mjs bench/shard/main.ts --url "postgres://postgres@127.0.0.1:$PORT/postgres" \
  "${pass[@]}" || status=$?
((interrupted == 0)) || exit "$interrupted"
exit "$status"
