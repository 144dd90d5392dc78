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
 *   thread, made on the first call (registering to decode only builds none), shared by every
 *   connection registered with the same three, the file known by its device and inode (any
 *   path spelling, a symlink), so connections of one thread never repeat. SQLite has no
 *   sequence a function can take from while a statement runs, so another thread or process
 *   minting with the same node on the file is refused with NodeInUseError (node-claim.ts: an
 *   exclusive lock on a claim file, and a mark so that the next holder never repeats the
 *   last one's IDs). The library's rules apply: a clock step back of up to `toleranceMs` (10)
 *   is waited out, a larger one throws ClockRollbackError; a used-up tick waits for the next.
 * - `idforge_time(id)`: ISO 8601 text (UTC, ms) of a Snowflake (INTEGER, the layout's), UUIDv7
 *   or ULID (TEXT). Times given to the functions are unix ms (INTEGER) or ISO 8601 text as
 *   SQLite's date functions read it (time-text.ts: no zone is UTC, whatever the host's TZ;
 *   a fraction below the ms is floored), the same reading as the backfill's.
 * - `idforge_uuidv7_lowest/highest(t)`, `idforge_snowflake_lowest/highest(t)` and the
 *   table-valued `idforge_uuidv7_bounds(from, to)`, `idforge_snowflake_bounds(from, to)`.
 */
import {
  type Clock,
  inspect,
  type Layout,
  parseSnowflake,
  SnowflakeGenerator,
  snowflakeTimestamp,
  UuidV7Generator,
} from 'idforge';
import { defaultClock } from 'idforge/internal';
import { snowflakeBounds } from 'idforge/snowflake';
import { layoutKey, layoutSql, nodeFieldsOf } from 'idforge/sql';
import { uuidv7At, uuidv7Bounds } from 'idforge/uuid';
import { fileIdentity, type NodeClaim, takeNodeClaim } from './node-claim.js';
import { sqliteTextMs } from './time-text.js';

/**
 * The part of a better-sqlite3 `Database` that registers functions (its constructor opens
 * the claim of a minting node, node-claim.ts).
 */
export interface SqliteFunctionHost {
  readonly name: string;
  /** Whether the database is in memory (better-sqlite3's `memory`). */
  readonly memory?: boolean;
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

/** This thread's generators by (file identity, layout, node), with the claim each holds. */
const shared = new Map<string, SnowflakeGenerator>();

/** A time argument: unix ms (number, bigint) or ISO 8601 text (time-text.ts). `RangeError` otherwise. */
function msOf(name: string, t: unknown): number {
  const ms =
    typeof t === 'bigint' || typeof t === 'number'
      ? Number(t)
      : typeof t === 'string'
        ? (sqliteTextMs(t) ?? Number.NaN)
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

/**
 * The thread's generator of (the file of `db`, layout, node), made on first use; a file's
 * first one takes the node's claim (NodeInUseError when another thread or process holds it).
 */
function generatorOf(
  db: SqliteFunctionHost,
  file: ReturnType<typeof fileIdentity>,
  options: SqliteFunctionsOptions,
): SnowflakeGenerator {
  const { layout, node } = options;
  const clock = options.clock ?? defaultClock();
  const key = `${file.key}\n${layoutKey(layout)}\n${node}`;
  let g = shared.get(key);
  if (g === undefined) {
    const fields = nodeFieldsOf(layoutSql(layout), node);
    let claim: NodeClaim | undefined;
    if (file.path !== undefined) {
      const Ctor = db.constructor as Parameters<typeof takeNodeClaim>[0];
      const id = { name: layout.name, key: layoutKey(layout), unitMs: layout.unitMs };
      claim = takeNodeClaim(Ctor, file.path, id, node, clock);
    }
    g = new SnowflakeGenerator({
      layout,
      fields,
      clock,
      ...(claim === undefined ? {} : { admit: (ms: number) => claim.admit(ms) }),
    });
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
  // Now, while the name still means what better-sqlite3 opened (relative to this directory).
  const file = fileIdentity(db.name, db.memory === true);
  let snowflakes: SnowflakeGenerator | undefined;
  const v7 = new UuidV7Generator(clock === undefined ? {} : { clock });
  const fresh = { deterministic: false, safeIntegers: true };
  const pure = { deterministic: true, safeIntegers: true };
  db.function('idforge_uuidv7', fresh, () => v7.next());
  db.function('idforge_uuidv7_at', fresh, (t: unknown) => uuidv7At(msOf('idforge_uuidv7_at', t)));
  db.function('idforge_snowflake', fresh, () => {
    snowflakes ??= generatorOf(db, file, options);
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
