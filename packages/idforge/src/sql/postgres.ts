/**
 * The PostgreSQL (12+) text of idforge's functions, generated from a layout's figures
 * (layout-sql.ts); what each does is in script.ts. PL/pgSQL and SQL functions only, no
 * extension: randomness from gen_random_uuid() (core since PostgreSQL 13; pgcrypto on 12).
 *
 * `idforge_snowflake()` moves one sequence: nextval, and setval when the clock's tick is
 * ahead. PostgreSQL's setval can move a sequence back, so the two run under an advisory lock
 * (key {@link PG_LOCK_KEY}) held for those two calls only, never to the end of the caller's
 * transaction. The lock is a transaction-level one taken inside a PL/pgSQL block that always
 * ends by raising {@link RELEASE_STATE}: the block's subtransaction is rolled back, and the lock
 * with it, whatever else happens (the sequence calls are not transactional and stay). A
 * session-level lock leaked instead: a cancel or timeout that PostgreSQL processes after
 * granting a waiting lock fails the call with the lock still held (issue 32), and every other
 * session then waited on it.
 *
 * A committed ID is durable: the first call of each transaction writes the sequence's state to
 * the WAL itself (setval), so the transaction's commit waits for the WAL flush (with
 * synchronous_commit on), and that flush covers the record behind every value it took. A crash
 * then never hands out a committed ID again, even with the clock behind the counter (issue 32:
 * 18 repeats in 506,015 IDs taken by autocommit SELECTs, whose commits flushed nothing). See
 * counterSql.
 */
import {
  type LayoutSql,
  layoutKey,
  UUIDV7_MAX_MS as MAX_MS,
  nodeBitsSql,
  type SqlFunction,
  sqlString,
} from './layout-sql.js';
import { msOf, snowflakeBoundFunctions, tsToMsSql, uuidBoundFunctions } from './postgres-bounds.js';

/** The advisory lock key of the Snowflake counter: "idforge1" in ASCII. */
export const PG_LOCK_KEY = 7594309496036357425n;

/** The SQLSTATE `idforge_snowflake()` raises and catches to end its lock's subtransaction. */
export const RELEASE_STATE = 'IDF00';

/**
 * What resets the counter when the layout changes: the sequence restarts in the install's
 * transaction. Dropping it (as before) failed every call waiting on it with XX000 once the
 * install committed (the OID they had resolved was gone); a restart keeps the OID, waits for
 * the transactions that hold the sequence and holds new callers until it commits, and
 * idforge_snowflake() refuses a counter of another layout (counterSql).
 */
export function postgresResetCounter(): string[] {
  return ['ALTER SEQUENCE IF EXISTS idforge_snowflake_seq RESTART'];
}

/**
 * The printed script's counter reset: `idforge sql > f.sql; psql -f f.sql` has no apply code to
 * compare the installed layout with its own, so the script restarts the sequence itself when
 * the version row names another layout (`key` is the script's). Without it a switch to a
 * layout of a later epoch kept the old counter, far ahead of the new clock: every ID read
 * 2041 until the next change.
 */
export function postgresResetIfOtherLayout(key: string): string {
  const other = `SELECT 1 FROM idforge_sql_version WHERE name = 'functions' AND layout_key <> ${sqlString(key)}`;
  const reset = postgresResetCounter()
    .map((s) => `    ${s};\n`)
    .join('');
  return `DO $reset$\nBEGIN\n  IF EXISTS (${other}) THEN\n${reset}  END IF;\nEND\n$reset$`;
}

/**
 * The identity of the database a session is in, as a SQL expression of text: the cluster's
 * system identifier (pg_control_system(), executable by everyone) and the database's OID. A
 * copy (CREATE DATABASE … TEMPLATE, a dump restored, pg_upgrade) differs in one of them; a
 * physical replica promoted, or a base backup started as a second server, does not.
 */
export const PG_DATABASE_IDENTITY =
  "(SELECT system_identifier FROM pg_control_system())::text || '/' || " +
  '(SELECT oid FROM pg_database WHERE datname = current_database())::text';

/** Records the identity of the database the install runs in (idforge_settings 'database'). */
export function postgresRecordDatabase(): string {
  return (
    `INSERT INTO idforge_settings (name, value) SELECT 'database', ${PG_DATABASE_IDENTITY} ` +
    'ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value'
  );
}

/**
 * The copy check of `idforge_snowflake()`: the database's identity must be the one the install
 * recorded (`db`), else this is a copy that would mint the original's IDs with its node. The
 * identity a session has checked is kept in the session setting idforge.database, so a call
 * pays a setting read and a comparison; the catalog is read once per session (and again after
 * a re-install records another identity).
 */
function copyCheckSql(): string {
  return `  IF db IS DISTINCT FROM current_setting('idforge.database', true) THEN
    live := ${PG_DATABASE_IDENTITY};
    IF db IS DISTINCT FROM live THEN
      RAISE EXCEPTION 'idforge_snowflake: this database is a copy (database %, identity %) of the one the functions were installed in (identity %): it would mint the same IDs with the same node', current_database(), live, coalesce(db, 'not recorded') USING ERRCODE = '55000',
        HINT = 'choose a node for it that no other database or generator uses: idforge sql --store URL --apply --node N (keep the same node only if the original no longer mints)';
    END IF;
    PERFORM set_config('idforge.database', live, false);
  END IF;`;
}

/** The tables and the counter, each created only when missing. */
export function postgresSetup(): string[] {
  return [
    'CREATE TABLE IF NOT EXISTS idforge_sql_version (name text PRIMARY KEY, version integer NOT NULL, ' +
      'layout text NOT NULL, layout_key text NOT NULL, installed_at timestamptz NOT NULL DEFAULT now())',
    'CREATE TABLE IF NOT EXISTS idforge_settings (name text PRIMARY KEY, value text NOT NULL)',
    'CREATE SEQUENCE IF NOT EXISTS idforge_snowflake_seq MINVALUE 0 START 0',
  ];
}

function fn(name: string, args: string, sql: string): SqlFunction {
  return { name, args, sql };
}

function clockFunctions(): SqlFunction[] {
  return [
    fn(
      'idforge_now_ms',
      '',
      `CREATE OR REPLACE FUNCTION idforge_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $f$
  SELECT coalesce(nullif(current_setting('idforge.now_ms', true), '')::bigint, ${msOf('clock_timestamp()')})
$f$`,
    ),
    fn(
      'idforge_ms_time',
      'bigint',
      `CREATE OR REPLACE FUNCTION idforge_ms_time(ms bigint) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
  SELECT timestamptz 'epoch' + ms * interval '1 millisecond'
$f$`,
    ),
  ];
}

function uuidv7Function(): SqlFunction {
  return fn(
    'idforge_uuidv7',
    '',
    `CREATE OR REPLACE FUNCTION idforge_uuidv7() RETURNS uuid LANGUAGE plpgsql VOLATILE AS $f$
DECLARE
  ms bigint := idforge_now_ms();
  st text := current_setting('idforge.uuidv7_state', true);
  r text := replace(gen_random_uuid()::text, '-', '');
  last bigint;
  ctr integer;
BEGIN
  IF st IS NOT NULL AND st <> '' THEN
    last := split_part(st, ':', 1)::bigint;
    ctr := split_part(st, ':', 2)::integer;
  END IF;
  IF last IS NULL OR ms > last THEN
    ctr := ('x' || substr(r, 1, 3))::bit(12)::integer & 2047;
  ELSE
    ms := last;
    ctr := ctr + 1;
    IF ctr > 4095 THEN
      ms := ms + 1;
      ctr := 0;
    END IF;
  END IF;
  IF ms < 0 OR ms > ${MAX_MS} THEN
    RAISE EXCEPTION 'idforge_uuidv7: time % ms is outside UUIDv7''s range', ms USING ERRCODE = '22008';
  END IF;
  PERFORM set_config('idforge.uuidv7_state', ms || ':' || ctr, false);
  RETURN (lpad(to_hex(ms), 12, '0') || '7' || lpad(to_hex(ctr), 3, '0') || substr(r, 17, 16))::uuid;
END
$f$`,
  );
}

function uuidv7AtFunction(): SqlFunction {
  return fn(
    'idforge_uuidv7_at',
    'timestamptz',
    `CREATE OR REPLACE FUNCTION idforge_uuidv7_at(ts timestamptz) RETURNS uuid LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $f$
DECLARE
  ms bigint;
  r text := replace(gen_random_uuid()::text, '-', '');
BEGIN
${tsToMsSql('idforge_uuidv7_at')}
  IF ms < 0 OR ms > ${MAX_MS} THEN
    RAISE EXCEPTION 'idforge_uuidv7_at: % is outside UUIDv7''s range (1970 to 10889)', ts USING ERRCODE = '22008';
  END IF;
  RETURN (lpad(to_hex(ms), 12, '0') || '7' || substr(r, 1, 3) || substr(r, 17, 16))::uuid;
END
$f$`,
  );
}

/**
 * The counter step of `idforge_snowflake()`: v := max(nextval, c) under the lock (see the
 * module's comment), and the first call of each transaction writes the sequence (setval, which
 * always writes WAL and gives the transaction an ID) so that the caller's commit flushes the
 * WAL. A commit flushes only when its transaction has an ID and wrote WAL itself; nextval
 * writes WAL once per 32 values, so the transactions that take the other 31 (an autocommit
 * SELECT) committed without a flush, and a crash before the flush of the record that covered
 * their values handed those values out again once the clock was behind the counter.
 *
 * Between nextval and setval it checks that the installed layout (the version row) is still
 * this function's `key`: a re-install that changes the layout restarts the sequence in its
 * transaction (ALTER SEQUENCE … RESTART, which waits for the callers holding the sequence and
 * holds new ones until it commits), so a call that began with the old function's text can find
 * the new counter there; it fails then with the retryable 40001 rather than setval a tick of
 * the old layout into the new counter or mint an ID mixing the two. The check reads the row
 * after nextval, so it sees any install whose counter nextval saw.
 */
function counterSql(key: string): string {
  return `  BEGIN
    PERFORM pg_advisory_xact_lock(${PG_LOCK_KEY});
    v := nextval('idforge_snowflake_seq');
    IF (SELECT layout_key FROM idforge_sql_version WHERE name = 'functions') IS DISTINCT FROM ${key} THEN
      RAISE EXCEPTION 'idforge_snowflake: the functions were re-installed with another layout while this call ran; nothing was minted, retry the call' USING ERRCODE = '40001',
        HINT = 'if it persists, the version row idforge_sql_version does not match the functions: run idforge sql --store URL --apply';
    END IF;
    IF v < c OR synced IS NOT TRUE THEN
      v := greatest(v, c);
      PERFORM setval('idforge_snowflake_seq', v, true);
    END IF;
    RAISE SQLSTATE '${RELEASE_STATE}';
  EXCEPTION WHEN SQLSTATE '${RELEASE_STATE}' THEN
    NULL;
  END;
  IF synced IS NOT TRUE THEN
    PERFORM set_config('idforge.synced', 'on', true);
  END IF;`;
}

function snowflakeFunction(l: LayoutSql): SqlFunction {
  const gene = l.geneBits === 0 ? '' : ` | floor(random() * ${2 ** l.geneBits})::bigint`;
  const name = l.layout.name.replaceAll("'", "''");
  return fn(
    'idforge_snowflake',
    '',
    `CREATE OR REPLACE FUNCTION idforge_snowflake() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $f$
DECLARE
  n bigint;
  db text;
  live text;
  ms bigint := idforge_now_ms();
  c bigint;
  v bigint;
  t bigint;
  id bigint;
  synced boolean := current_setting('idforge.synced', true) = 'on';
BEGIN
  SELECT (SELECT value::bigint FROM idforge_settings WHERE name = 'node'),
    (SELECT value FROM idforge_settings WHERE name = 'database') INTO n, db;
${copyCheckSql()}
  IF n IS NULL THEN
    RAISE EXCEPTION 'idforge_snowflake: no node is set' USING ERRCODE = '55000',
      HINT = 'run idforge sql --store URL --apply --node N';
  END IF;
  IF ms < ${l.epochMs} THEN
    RAISE EXCEPTION 'idforge_snowflake: the clock (% ms) is before the epoch of layout ${name}', ms USING ERRCODE = '22008';
  END IF;
  c := ((ms - ${l.epochMs}) / ${l.unitMs}) << ${l.seqBits};
${counterSql(`'${layoutKey(l.layout).replaceAll("'", "''")}'`)}
  t := v >> ${l.seqBits};
  IF t > ${l.timeMask} THEN
    RAISE EXCEPTION 'idforge_snowflake: tick % is past the horizon of layout ${name}', t USING ERRCODE = '22008';
  END IF;
  id := (t << ${l.timeShift}) | ${nodeBitsSql(l, 'n')} | ((v & ${l.seqMask}) << ${l.seqShift})${gene};
  IF id < 0 THEN
    RAISE EXCEPTION 'idforge_snowflake: the ID passes the signed 64-bit range of BIGINT' USING ERRCODE = '22003';
  END IF;
  RETURN id;
END
$f$`,
  );
}

function timeFunctions(l: LayoutSql): SqlFunction[] {
  const ulid = "'0123456789ABCDEFGHJKMNPQRSTVWXYZ'";
  return [
    fn(
      'idforge_time',
      'bigint',
      `CREATE OR REPLACE FUNCTION idforge_time(id bigint) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $f$
  SELECT idforge_ms_time(${l.epochMs} + ((id >> ${l.timeShift}) & ${l.timeMask}) * ${l.unitMs})
$f$`,
    ),
    fn(
      'idforge_time',
      'uuid',
      `CREATE OR REPLACE FUNCTION idforge_time(id uuid) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
BEGIN
  IF substr(id::text, 15, 1) <> '7' OR substr(id::text, 20, 1) NOT IN ('8', '9', 'a', 'b') THEN
    RAISE EXCEPTION 'idforge_time: % is not a UUIDv7 (version 7, variant RFC 9562)', id USING ERRCODE = '22023';
  END IF;
  RETURN idforge_ms_time(('x' || lpad(substr(replace(id::text, '-', ''), 1, 12), 16, '0'))::bit(64)::bigint);
END
$f$`,
    ),
    fn(
      'idforge_time',
      'text',
      `CREATE OR REPLACE FUNCTION idforge_time(id text) RETURNS timestamptz LANGUAGE plpgsql STABLE PARALLEL SAFE AS $f$
DECLARE
  ms bigint := 0;
  d integer;
  u text;
BEGIN
  IF id ~ '^[0-9]{1,19}$' THEN
    RETURN idforge_time(id::bigint);
  ELSIF length(id) = 26 THEN
    FOR i IN 1..26 LOOP
      d := strpos(${ulid}, upper(substr(id, i, 1))) - 1;
      IF d < 0 OR (i = 1 AND d > 7) THEN
        RAISE EXCEPTION 'idforge_time: % is not a ULID', id USING ERRCODE = '22023';
      END IF;
      IF i <= 10 THEN
        ms := ms * 32 + d;
      END IF;
    END LOOP;
    RETURN idforge_ms_time(ms);
  END IF;
  -- The library's spellings of a UUID only (inspect): PostgreSQL's uuid input takes more.
  u := CASE WHEN lower(left(id, 9)) = 'urn:uuid:' THEN substr(id, 10)
    WHEN left(id, 1) = '{' AND right(id, 1) = '}' THEN substr(id, 2, length(id) - 2) ELSE id END;
  IF u !~ '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$' THEN
    RAISE EXCEPTION 'idforge_time: % is not a Snowflake, a ULID or a UUID (36 characters with hyphens, 32 hex digits, {…} or urn:uuid:…)', id USING ERRCODE = '22023';
  END IF;
  RETURN idforge_time(u::uuid);
END
$f$`,
    ),
  ];
}

/** Every function of the layout, in creation order (each after what it calls). */
export function postgresFunctions(l: LayoutSql): SqlFunction[] {
  return [
    ...clockFunctions(),
    uuidv7Function(),
    uuidv7AtFunction(),
    snowflakeFunction(l),
    ...timeFunctions(l),
    ...uuidBoundFunctions(),
    ...snowflakeBoundFunctions(l),
  ];
}
