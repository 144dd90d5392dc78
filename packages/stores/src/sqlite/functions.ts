/**
 * idforge's SQL functions on a better-sqlite3 connection: `registerIdforgeFunctions(db,
 * { layout, node })` registers, under the names PostgreSQL and MariaDB get from `idforge sql`,
 * application-defined functions computed by the library itself. SQLite has no stored
 * functions, so nothing is written to the file: every connection that wants them registers
 * them (`idforge sql --store sqlite:…` says so and points here).
 *
 * - `idforge_uuidv7()`: the library's UuidV7Generator, one per connection: strictly
 *   increasing on the connection. `idforge_uuidv7_at(t)`: `uuidv7At`.
 * - `idforge_snowflake()`: one SnowflakeGenerator per (database file, layout, node) in this
 *   process, made on the first call (registering to decode only builds none), shared by every connection registered with the same three, so connections of
 *   one process never repeat. SQLite has no sequence a function can take from while a
 *   statement runs, so two PROCESSES on one file need two nodes. The library's rules apply:
 *   a clock step back of up to `toleranceMs` (10) is waited out, a larger one throws
 *   ClockRollbackError; a used-up tick waits for the next.
 * - `idforge_time(id)`: ISO 8601 text (UTC, ms) of a Snowflake (INTEGER, the layout's), UUIDv7
 *   or ULID (TEXT). Times given to the functions are unix ms (INTEGER) or ISO 8601 text.
 * - `idforge_uuidv7_lowest/highest(t)`, `idforge_snowflake_lowest/highest(t)` and the
 *   table-valued `idforge_uuidv7_bounds(from, to)`, `idforge_snowflake_bounds(from, to)`.
 */
import {
  type Clock,
  inspect,
  type Layout,
  parseSnowflake,
  SnowflakeGenerator,
  snowflakeBounds,
  snowflakeTimestamp,
  UuidV7Generator,
  uuidv7At,
  uuidv7Bounds,
} from 'idforge';
import { layoutKey, layoutSql, nodeFieldsOf } from 'idforge/sql';

/** The part of a better-sqlite3 `Database` that registers functions. */
export interface SqliteFunctionHost {
  readonly name: string;
  function(
    name: string,
    options: { readonly deterministic?: boolean; readonly safeIntegers?: boolean },
    fn: (...args: never[]) => unknown,
  ): unknown;
  table(
    name: string,
    definition: {
      readonly columns: string[];
      readonly parameters: string[];
      readonly safeIntegers?: boolean;
      rows(...args: unknown[]): Generator<unknown>;
    },
  ): unknown;
}

/** Options of {@link registerIdforgeFunctions}. */
export interface SqliteFunctionsOptions {
  /** The Snowflake layout of idforge_snowflake() and idforge_time() (a Layout). */
  readonly layout: Layout;
  /** The composite node number (every node field, most significant first). */
  readonly node: number;
  /** Time source of the generators. Default: the library's clock. */
  readonly clock?: Clock;
}

const shared = new Map<string, SnowflakeGenerator>();

/** A time argument: unix ms (number, bigint) or ISO 8601 text. `RangeError` otherwise. */
function msOf(name: string, t: unknown): number {
  const ms =
    typeof t === 'bigint' || typeof t === 'number'
      ? Number(t)
      : typeof t === 'string'
        ? Date.parse(t)
        : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new RangeError(`${name}: expected unix ms or ISO 8601 text, got ${String(t)}`);
  }
  return Math.floor(ms);
}

function timeOf(layout: Layout, id: unknown): string {
  let ms: number;
  if (typeof id === 'bigint' || (typeof id === 'string' && /^[0-9]{1,20}$/.test(id))) {
    ms = snowflakeTimestamp(layout, typeof id === 'bigint' ? id : parseSnowflake(id, layout));
  } else {
    const r = inspect(String(id));
    if (r.unixMs === undefined || (r.scheme === 'uuid' && r.version !== 7)) {
      throw new RangeError(`idforge_time: expected a Snowflake, a UUIDv7 or a ULID, got ${id}`);
    }
    ms = r.unixMs;
  }
  return new Date(ms).toISOString();
}

function generatorOf(db: SqliteFunctionHost, options: SqliteFunctionsOptions): SnowflakeGenerator {
  const { layout, node, clock } = options;
  const fields = nodeFieldsOf(layoutSql(layout), node);
  const key = `${db.name}\n${layoutKey(layout)}\n${node}`;
  let g = shared.get(key);
  if (g === undefined) {
    g = new SnowflakeGenerator({ layout, fields, ...(clock === undefined ? {} : { clock }) });
    shared.set(key, g);
  }
  return g;
}

/**
 * Registers idforge's functions on `db` (see the module comment). Throws `RangeError` for a
 * node out of the layout's range or a layout the SQL functions cannot hold, as `idforge sql`.
 * The SQL functions throw the library's errors, which SQLite reports as the statement's error.
 */
export function registerIdforgeFunctions(
  db: SqliteFunctionHost,
  options: SqliteFunctionsOptions,
): void {
  const { layout, clock } = options;
  nodeFieldsOf(layoutSql(layout), options.node); // checked now, the generator made on first use
  let snowflakes: SnowflakeGenerator | undefined;
  const v7 = new UuidV7Generator(clock === undefined ? {} : { clock });
  const fresh = { deterministic: false, safeIntegers: true };
  const pure = { deterministic: true, safeIntegers: true };
  db.function('idforge_uuidv7', fresh, () => v7.next());
  db.function('idforge_uuidv7_at', fresh, (t: unknown) => uuidv7At(msOf('idforge_uuidv7_at', t)));
  db.function('idforge_snowflake', fresh, () => {
    snowflakes ??= generatorOf(db, options);
    return snowflakes.next();
  });
  db.function('idforge_time', pure, (id: unknown) => timeOf(layout, id));
  const v7Bound = (name: string, end: 'lowest' | 'highest') =>
    db.function(name, pure, (t: unknown) => uuidv7Bounds(msOf(name, t))[end]);
  v7Bound('idforge_uuidv7_lowest', 'lowest');
  v7Bound('idforge_uuidv7_highest', 'highest');
  const sfBound = (name: string, end: 'lowest' | 'highest') =>
    db.function(name, pure, (t: unknown) => snowflakeBounds(layout, msOf(name, t))[end]);
  sfBound('idforge_snowflake_lowest', 'lowest');
  sfBound('idforge_snowflake_highest', 'highest');
  const table = (name: string, bounds: (a: number, b: number) => readonly unknown[]) =>
    db.table(name, {
      columns: ['lowest', 'highest'],
      parameters: ['from_ts', 'to_ts'],
      safeIntegers: true,
      *rows(from: unknown, to: unknown) {
        const a = msOf(name, from);
        yield [...bounds(a, to === null || to === undefined ? a : msOf(name, to))];
      },
    });
  table('idforge_uuidv7_bounds', (a, b) => {
    const r = uuidv7Bounds(a, b);
    return [r.lowest, r.highest];
  });
  table('idforge_snowflake_bounds', (a, b) => {
    const r = snowflakeBounds(layout, a, b);
    return [r.lowest, r.highest];
  });
}
