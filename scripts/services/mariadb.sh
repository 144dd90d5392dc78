#!/usr/bin/env bash
# Runs a MariaDB server of the project's own on loopback, for fault tests that crash a ticket
# server (the shared MariaDB on 3306 is never touched). User root with an empty password over
# TCP, data directory, socket, pid and log all inside DIR, configured as a durable ticket
# server (see write_config below for why each setting).
#
#   scripts/services/mariadb.sh start  [--port N] [--dir DIR] [--profile default|bench]
#   scripts/services/mariadb.sh stop   [--port N] [--dir DIR] [--kill] [--wipe]
#   scripts/services/mariadb.sh status [--port N] [--dir DIR]
#
# Defaults: port 13306; dir ${TMPDIR:-/tmp}/idforge-mariadb-PORT (my.cnf, data/, socket, pid,
# log). `stop --kill` sends SIGKILL (a crash: InnoDB recovers from its redo log at the next
# start); `--wipe` deletes DIR after stopping. Idempotent: starting a running server or
# stopping a stopped one is a no-op. Needs mariadbd from Debian's mariadb-server (installed
# with apt-get when missing and we are root). Exit status 0 on success. `start` waits up to
# 180 s (IDFORGE_MARIADB_START_S) while mariadbd lives, and prints the end of its log when it
# exits or the wait runs out.
#
# --profile (start only; the others accept and ignore it):
#   default  the durable ticket server the fault tests have always had (write_config).
#   bench    the same server plus the settings `npm run bench:db` (bench/db/run.sh) needs: a
#            32M buffer pool that an index outgrows at a few million rows, direct I/O so that a
#            page missing from it is a real read, a modest redo log, the doublewrite buffer and
#            persistent statistics (see bench_settings below for each and why). They go in a
#            block at the end of DIR/my.cnf (rewritten at every start), so one data directory
#            can be started with either profile.
# A server that already answers on the port is reused only if it runs the profile asked for:
# `start --profile bench` checks every bench setting with SHOW GLOBAL VARIABLES and refuses,
# naming each one that differs, if any does; a plain `start` refuses a server that has all of
# them. Stop it first (`stop --port N`) to change profiles.
set -euo pipefail

cmd="${1:-start}"
[[ $# -gt 0 ]] && shift
port=13306
dir=""
kill=0
wipe=0
profile=default
# How long `start` waits for a live server to answer (IDFORGE_MARIADB_START_S overrides).
start_bound="${IDFORGE_MARIADB_START_S:-180}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --kill) kill=1; shift ;;
    --wipe) wipe=1; shift ;;
    --profile) profile="$2"; shift 2 ;;
    *) echo "mariadb.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ "$port" =~ ^[0-9]+$ ]] || { echo "mariadb.sh: expected a numeric --port, got '$port'" >&2; exit 1; }
[[ "$port" != 3306 ]] || { echo "mariadb.sh: 3306 is the shared server; pick another port" >&2; exit 1; }
[[ "$profile" == default || "$profile" == bench ]] ||
  { echo "mariadb.sh: expected --profile default or bench, got '$profile'" >&2; exit 1; }
dir="${dir:-${TMPDIR:-/tmp}/idforge-mariadb-$port}"
tag="" # said after "answers on ..." for a profile other than the default
[[ "$profile" == default ]] || tag="$profile profile"
pidfile="$dir/mariadb.pid"
cnf="$dir/my.cnf"

# --no-defaults: never read /etc/mysql/my.cnf, whose socket and pid file are the shared server's.
up() {
  mariadb-admin --no-defaults --protocol=tcp -h 127.0.0.1 -P "$port" -u root \
    --connect-timeout=2 ping >/dev/null 2>&1
}

# The bench profile, as NAME=VALUE: written to my.cnf as `NAME = VALUE` and compared with what
# SHOW GLOBAL VARIABLES prints (sizes there are bytes: 32M is 33554432).
bench_settings=(
  # The cache the indexes compete for: about 2,000 pages of 16KiB, outgrown by a random-key
  # primary index at a few million rows. 32M is well above MariaDB 10.11's minimum (2M, its
  # information_schema.SYSTEM_VARIABLES says) and is not rounded (SHOW prints 33554432).
  innodb_buffer_pool_size=32M
  # Data files opened with O_DIRECT: a page that is not in the buffer pool is read from the
  # disk, not from the kernel's page cache (the 10.11 default, stated).
  innodb_flush_method=O_DIRECT
  # A modest redo log (twice the buffer pool): checkpoints come often, so dirty pages are
  # written back during the load and its cost is in the figures, not deferred past the end.
  innodb_log_file_size=64M
  # Every page written twice (doublewrite buffer, then its place): InnoDB's counterpart of
  # PostgreSQL's full-page images, part of what a scattered write costs.
  innodb_doublewrite=ON
  # Durable commits, as the numbers claim: the redo log fsynced at every commit.
  innodb_flush_log_at_trx_commit=1
  # Persistent statistics (mysql.innodb_index_stats: an index's size and leaf pages), kept up
  # to date as the tables grow.
  innodb_stats_persistent=ON
  innodb_stats_auto_recalc=ON
  # One tablespace per table, so each table's and index's bytes can be told apart.
  innodb_file_per_table=ON
  # Every start is cold: no buffer pool dump written at shutdown or loaded at startup.
  innodb_buffer_pool_dump_at_shutdown=OFF
  innodb_buffer_pool_load_at_startup=OFF
)

# A size such as 32M in bytes; anything else unchanged.
bytes() {
  case "$1" in
    *[0-9]K) echo $((${1%K} * 1024)) ;;
    *[0-9]M) echo $((${1%M} * 1024 * 1024)) ;;
    *[0-9]G) echo $((${1%G} * 1024 * 1024 * 1024)) ;;
    *) echo "$1" ;;
  esac
}

# NAME=VALUE lines of the running server's values of the bench settings; fails when the server
# cannot be asked.
live_settings() {
  local names="" kv
  for kv in "${bench_settings[@]}"; do names+="${names:+,}'${kv%%=*}'"; done
  mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$port" -u root --connect-timeout=2 -N -B \
    -e "SELECT CONCAT(LOWER(VARIABLE_NAME), '=', VARIABLE_VALUE)
          FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN ($names)" 2>/dev/null
}

# Refuses (exit 1) a running server whose settings are not the profile asked for.
check_profile() {
  local live kv name want have differ=""
  if ! live="$(live_settings)"; then
    [[ "$profile" == default ]] && return 0 # as before: reuse what answers
    echo "mariadb.sh: MariaDB answers on 127.0.0.1:$port but its settings cannot be read;" \
      "not reusing it for --profile bench" >&2
    exit 1
  fi
  for kv in "${bench_settings[@]}"; do
    name="${kv%%=*}"
    want="$(bytes "${kv#*=}")"
    have="$(grep -m1 "^$name=" <<<"$live" || true)"
    have="${have#*=}"
    [[ "${have,,}" == "${want,,}" ]] || differ+="${differ:+, }$name=${have:-?} (bench: $want)"
  done
  if [[ "$profile" == bench && -n "$differ" ]]; then
    echo "mariadb.sh: MariaDB already answers on 127.0.0.1:$port without the bench profile:" \
      "$differ. Stop it first (scripts/services/mariadb.sh stop --port $port)" >&2
    exit 1
  fi
  if [[ "$profile" == default && -z "$differ" ]]; then
    echo "mariadb.sh: MariaDB already answers on 127.0.0.1:$port with the bench profile" \
      "(innodb_log_file_size=64M ...); stop it first" \
      "(scripts/services/mariadb.sh stop --port $port) or pass --profile bench" >&2
    exit 1
  fi
  return 0
}

ours_running() { [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

install_server() {
  command -v mariadbd >/dev/null && return 0
  [[ -x /usr/sbin/mariadbd ]] && return 0
  [[ "$(id -u)" == 0 ]] || { echo "mariadb.sh: mariadbd is not installed (apt-get install mariadb-server)" >&2; exit 1; }
  echo "mariadb.sh: installing mariadb-server from Debian's packages" >&2
  # policy-rc.d 101: the package must not start (or restart) the distribution's own server.
  local policy=/usr/sbin/policy-rc.d created=0
  if [[ ! -e "$policy" ]]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; created=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mariadb-server >"$dir/apt.log" 2>&1 ||
    { ((created)) && rm -f "$policy"; echo "mariadb.sh: apt-get failed; see $dir/apt.log" >&2; exit 1; }
  ((created)) && rm -f "$policy"
  return 0
}

write_config() {
  local user=""
  [[ "$(id -u)" == 0 ]] && user="user = mysql"
  cat >"$cnf" <<EOF
# Written by scripts/services/mariadb.sh: an idforge ticket server for tests.
[mysqld]
$user
datadir = $dir/data
socket = $dir/mariadb.sock
pid-file = $pidfile
log-error = $dir/mariadb.log
port = $port
# Loopback only: a test server with a password-less root must not be reachable from outside.
bind-address = 127.0.0.1
# Accounts match by address (root@127.0.0.1); no DNS lookups that could stall a connection.
skip-name-resolve
# Durability, the whole point of a ticket server: a ticket is acknowledged only after the
# REPLACE's commit is in the redo log on disk (fsync per commit), so a crash (SIGKILL, power
# loss) can never bring back a counter below a ticket a client already holds. InnoDB persists
# the auto-increment counter in that same redo log (MariaDB >= 10.2.4), and the ticket row
# holds the last ticket, so recovery restarts above it. MyISAM (Flickr's 2006 choice) has
# neither a redo log nor crash recovery: never use it for tickets.
default-storage-engine = InnoDB
innodb_flush_log_at_trx_commit = 1
# Torn-page protection for the data pages recovery reads back (the default; stated on purpose).
innodb_doublewrite = 1
# REPLACE of one row is a "simple insert": lock mode 1 (consecutive) allocates its value under
# a short mutex, not a statement-long table lock, and stays safe if someone enables
# statement-based replication; mode 2 (interleaved) would gain nothing for single rows.
innodb_autoinc_lock_mode = 1
# No binary log: a ticket server is not replicated (Flickr's two servers are independent,
# split by auto_increment_offset). If you turn it on, also set sync_binlog = 1, so the binlog
# and InnoDB agree after a crash (two-phase commit with both fsynced).
skip-log-bin
# auto_increment_increment/offset are NOT set here: idforge's ticket client sets them in the
# session of every ticket statement, from the settings stored with each ticket table, so they
# survive restarts and need no SUPER privilege (SET GLOBAL is lost at a restart unless it is
# also in this file). See docs/sequences-tickets.md.
# Small footprint for a test machine.
innodb_buffer_pool_size = 32M
innodb_log_file_size = 16M
performance_schema = OFF
character-set-server = utf8mb4
collation-server = utf8mb4_general_ci
EOF
  [[ "$profile" == bench ]] || return 0
  local kv
  {
    echo "# --profile bench (scripts/services/mariadb.sh's bench_settings say why): these come"
    echo "# last, so they override any value above."
    for kv in "${bench_settings[@]}"; do echo "${kv%%=*} = ${kv#*=}"; done
  } >>"$cnf"
}

start() {
  if up; then
    check_profile
    echo "mariadb.sh: MariaDB already answers on 127.0.0.1:$port${tag:+ ($tag)}"
    return 0
  fi
  mkdir -p "$dir"
  install_server
  local mariadbd
  mariadbd="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
  write_config
  if [[ ! -d "$dir/data/mysql" ]]; then
    # "normal": root@localhost, root@127.0.0.1 and root@::1 with an empty password, as on the
    # shared test server (the Debian default is unix-socket authentication only).
    mariadb-install-db --defaults-file="$cnf" --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1 ||
      { echo "mariadb.sh: mariadb-install-db failed; see $dir/install.log" >&2; exit 1; }
  fi
  [[ "$(id -u)" != 0 ]] || chown -R mysql: "$dir"
  # setsid and closed descriptors: the server outlives this script and its caller's pipes.
  setsid "$mariadbd" --defaults-file="$cnf" </dev/null >>"$dir/mariadb.out" 2>&1 &
  local server=$! started=$SECONDS
  # Waits while the server lives, up to start_bound seconds: crash recovery after a SIGKILL
  # on a loaded machine can take far longer than a clean start. A server that exits (a bind
  # or lock error, a bad setting) ends the wait at once, and either way the end of its log
  # is printed, so a failure in CI says why without the log file.
  while ((SECONDS - started < start_bound)); do
    if up; then
      mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$port" -u root \
        -e 'CREATE DATABASE IF NOT EXISTS test' >/dev/null
      echo "mariadb.sh: MariaDB answers on 127.0.0.1:$port (data in $dir/data${tag:+, $tag}," \
        "$((SECONDS - started)) s)"
      return 0
    fi
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$server" 2>/dev/null; then
    echo "mariadb.sh: MariaDB (pid $server) did not answer on 127.0.0.1:$port within" \
      "${start_bound} s; the end of $dir/mariadb.log:" >&2
  else
    echo "mariadb.sh: mariadbd exited before answering on 127.0.0.1:$port; the end of" \
      "$dir/mariadb.log:" >&2
  fi
  tail -n 25 "$dir/mariadb.log" "$dir/mariadb.out" >&2 2>/dev/null || true
  exit 1
}

stop() {
  if ours_running; then
    local pid
    pid="$(cat "$pidfile")"
    if ((kill)); then kill -KILL "$pid"; else kill -TERM "$pid"; fi
    for _ in $(seq 1 1200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    if kill -0 "$pid" 2>/dev/null; then echo "mariadb.sh: pid $pid did not stop" >&2; exit 1; fi
    echo "mariadb.sh: stopped MariaDB (pid $pid) on 127.0.0.1:$port$( ((kill)) && echo ' (SIGKILL)')"
  else
    echo "mariadb.sh: no MariaDB of ours on 127.0.0.1:$port"
  fi
  rm -f "$pidfile"
  if ((wipe)); then rm -rf "$dir"; fi
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) if up; then echo "mariadb.sh: up on $port"; else echo "mariadb.sh: down on $port"; exit 1; fi ;;
  *) echo "mariadb.sh: expected start, stop or status, got '$cmd'" >&2; exit 1 ;;
esac
