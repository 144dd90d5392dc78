/**
 * PostgreSQL's time arguments and time bounds: how a function body takes a timestamptz into
 * unix ms, and the `_lowest`/`_highest`/`_bounds` functions of UUIDv7 and of the layout's
 * Snowflakes (what each does is in script.ts). Split from postgres.ts, which lists them.
 */
import { type LayoutSql, UUIDV7_MAX_MS as MAX_MS, type SqlFunction } from './layout-sql.js';

function fn(name: string, args: string, sql: string): SqlFunction {
  return { name, args, sql };
}

/** The unix ms of timestamptz `ts` (floored). */
export const msOf = (ts: string) => `floor(extract(epoch FROM ${ts}) * 1000)::bigint`;

/**
 * The first lines of a body that takes a time `ts` into `ms`: NULL is an error (22004) rather
 * than a NULL answer, and ±infinity is out of range (22008), before the bigint cast that
 * failed on it with 0A000.
 */
export function tsToMsSql(fname: string): string {
  return `  IF ts IS NULL THEN
    RAISE EXCEPTION '${fname}: the time is NULL' USING ERRCODE = '22004';
  END IF;
  IF NOT isfinite(ts) THEN
    RAISE EXCEPTION '${fname}: % is outside the times it encodes', ts USING ERRCODE = '22008';
  END IF;
  ms := ${msOf('ts')};`;
}

export function uuidBoundFunctions(): SqlFunction[] {
  const bound = (name: string, tail: string) =>
    fn(
      name,
      'timestamptz',
      `CREATE OR REPLACE FUNCTION ${name}(ts timestamptz) RETURNS uuid LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
DECLARE
  ms bigint;
BEGIN
${tsToMsSql(name)}
  IF ms < 0 OR ms > ${MAX_MS} THEN
    RAISE EXCEPTION '${name}: % is outside UUIDv7''s range', ts USING ERRCODE = '22008';
  END IF;
  RETURN (lpad(to_hex(ms), 12, '0') || '${tail}')::uuid;
END
$f$`,
    );
  return [
    bound('idforge_uuidv7_lowest', '70008000000000000000'),
    bound('idforge_uuidv7_highest', '7fffbfffffffffffffff'),
    boundsFunction('idforge_uuidv7', 'uuid'),
  ];
}

function boundsFunction(prefix: string, type: string): SqlFunction {
  return fn(
    `${prefix}_bounds`,
    'timestamptz, timestamptz',
    `CREATE OR REPLACE FUNCTION ${prefix}_bounds(from_ts timestamptz, to_ts timestamptz DEFAULT NULL)
  RETURNS TABLE (lowest ${type}, highest ${type}) LANGUAGE plpgsql STABLE PARALLEL SAFE AS $f$
BEGIN
  IF from_ts IS NULL THEN
    RAISE EXCEPTION '${prefix}_bounds: from is NULL' USING ERRCODE = '22004';
  END IF;
  IF to_ts < from_ts THEN
    RAISE EXCEPTION '${prefix}_bounds: to (%) is before from (%)', to_ts, from_ts USING ERRCODE = '22023';
  END IF;
  RETURN QUERY SELECT ${prefix}_lowest(from_ts), ${prefix}_highest(coalesce(to_ts, from_ts));
END
$f$`,
  );
}

export function snowflakeBoundFunctions(l: LayoutSql): SqlFunction[] {
  const name = l.layout.name.replaceAll("'", "''");
  const low = (1n << BigInt(l.timeShift)) - 1n;
  const bound = (fname: string, rest: string) =>
    fn(
      fname,
      'timestamptz',
      `CREATE OR REPLACE FUNCTION ${fname}(ts timestamptz) RETURNS bigint LANGUAGE plpgsql STABLE PARALLEL SAFE AS $f$
DECLARE
  ms bigint;
  id bigint;
BEGIN
${tsToMsSql(fname)}
  IF ${!l.sortable} THEN
    RAISE EXCEPTION '${fname}: the time is not the top field of layout ${name}: its IDs do not sort by time' USING ERRCODE = '0A000';
  END IF;
  IF ms < ${l.epochMs} OR ms > ${l.lastMs} THEN
    RAISE EXCEPTION '${fname}: % is outside the time of layout ${name}', ts USING ERRCODE = '22008';
  END IF;
  id := (((ms - ${l.epochMs}) / ${l.unitMs}) << ${l.timeShift})${rest};
  IF id < 0 THEN
    RAISE EXCEPTION '${fname}: % passes the signed 64-bit range of BIGINT', ts USING ERRCODE = '22003';
  END IF;
  RETURN id;
END
$f$`,
    );
  return [
    bound('idforge_snowflake_lowest', ''),
    bound('idforge_snowflake_highest', ` | ${low}`),
    boundsFunction('idforge_snowflake', 'bigint'),
  ];
}
