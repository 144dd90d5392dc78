/**
 * `sqlFunctions(engine, { layout, node })`: the SQL that installs idforge's functions in a
 * database, as data (statements by step) so that `idforge sql` prints it and a store applies
 * it (ports.ts). Pure: it reads nothing and runs nothing.
 *
 * What every engine gets (docs/in-database.md):
 * - `idforge_uuidv7()`: RFC 9562 UUIDv7, 48-bit ms, a 12-bit counter in rand_a (seeded at
 *   random below 2048 on each new ms, +1 within a ms, carrying into the ms at 4096), 62 random
 *   bits; strictly increasing within a session. `idforge_uuidv7_at(ts)`: random below the ms.
 * - `idforge_snowflake()`: one counter (a PostgreSQL sequence, a MariaDB Aria row) holds `tick × 2^seqBits + sequence`. Each
 *   call takes the next value and, when the clock's tick is ahead, moves the sequence forward
 *   to `clockTick × 2^seqBits` (never back); the ID's time and sequence fields are that value, the node
 *   fields come from `idforge_settings` (name 'node'). The counter never goes back, so no two
 *   calls in any sessions get the same value. Overflow (more than 2^seqBits IDs in a tick)
 *   carries into the time field, and a clock that goes back does not move the counter back:
 *   the time field then runs ahead of the clock until it catches up. Nothing waits, nothing
 *   repeats.
 * - `idforge_time(id)`: the creation time of a Snowflake (installed layout), UUIDv7 or ULID.
 * - `idforge_uuidv7_lowest/highest(ts)`, `idforge_snowflake_lowest/highest(ts)` and the
 *   `…_bounds(from, to)` forms: the same bounds as the library's `uuidv7Bounds` and
 *   `snowflakeBounds`, for `WHERE id BETWEEN`.
 *
 * The clock is `idforge_now_ms()`: the session's `idforge.now_ms` setting (PostgreSQL) or
 * `@idforge_now_ms` variable (MariaDB) when set (a test hook), else the real clock.
 */
import type { Layout } from '../core/index.js';
import { dialectsOf, type SqlDialectName } from '../core/internal.js';
import {
  type LayoutSql,
  layoutKey,
  layoutSql,
  nodeFieldsOf,
  type SqlFunction,
  sqlString,
} from './layout-sql.js';
import { MARIADB_COUNTER, mariadbFunctions, mariadbSetup, mariadbSwitch } from './mariadb.js';
import {
  postgresFunctions,
  postgresRecordDatabase,
  postgresResetCounter,
  postgresResetIfOtherLayout,
  postgresSetup,
} from './postgres.js';

// Kept here too for the modules that import it from script.ts (it lives in layout-sql.ts so
// that mariadb.ts, which script.ts imports, can use it without a cycle).
export { sqlString } from './layout-sql.js';

/** The dialects of the engines that hold idforge's functions (core/engines.ts). */
export type SqlEngine = SqlDialectName;
export const SQL_ENGINES: readonly SqlEngine[] = dialectsOf('sqlFunctions');

/**
 * The version of the functions' SQL. A change to any function's text is a new version;
 * applying a newer version over an older one replaces every function (an upgrade).
 */
export const SQL_FUNCTIONS_VERSION = 2;

/** Everything to install, upgrade or remove the functions of one layout on one engine. */
export interface SqlScript {
  readonly engine: SqlEngine;
  readonly version: number;
  /** The layout's name and bits (layoutKey): a change resets the Snowflake counter. */
  readonly layoutKey: string;
  readonly layout: string;
  /** The composite node number written to idforge_settings, if given. */
  readonly node: number | undefined;
  /** The node number's fields by name (what `inspect` shows of the IDs). */
  readonly nodeFields: Readonly<Record<string, number>> | undefined;
  /** Tables and the sequence, each created only if missing. */
  readonly setup: readonly string[];
  /**
   * Drops the Snowflake counter, run before `setup` when the layout changes (PostgreSQL;
   * empty for MariaDB, whose `record` resets the counter in the statement that switches the
   * layout).
   */
  readonly resetCounter: readonly string[];
  /** The functions, each created or replaced. */
  readonly functions: readonly SqlFunction[];
  /** Writes the node setting (when given) and the version row: the last step. */
  readonly record: readonly string[];
  /** Drops every object the install creates, and nothing else. */
  readonly remove: readonly string[];
}

/** Options of {@link sqlFunctions}. */
export interface SqlFunctionsOptions {
  /** The Snowflake layout of `idforge_snowflake()` (a preset or a defineLayout value). */
  readonly layout: Layout;
  /** The composite node number (every node field, most significant first); default none. */
  readonly node?: number;
}

/** The objects the install owns, besides the functions. */
export const SQL_TABLES = ['idforge_sql_version', 'idforge_settings'] as const;
export const SQL_SEQUENCE = 'idforge_snowflake_seq';

/** What differs between the dialects' scripts: one entry per {@link SqlEngine}. */
interface Dialect {
  functions(l: LayoutSql): SqlFunction[];
  setup(): string[];
  /** Drops the Snowflake counter before `setup` when the layout changes (empty: `record` does). */
  resetCounter(): string[];
  /** The statement that drops the Snowflake counter: a sequence, or MariaDB's counter table. */
  readonly counterDrop: string;
  /** What follows `INSERT ...` to overwrite `cols` of a row that exists. */
  upsert(cols: readonly string[]): string;
  /** What `record` runs before the version row: the node and what goes with it. */
  recordFirst(key: string, node: number | undefined): string[];
  dropFunction(f: SqlFunction): string;
  /** The script as one text the dialect's client runs, after `head`. */
  text(script: SqlScript, head: string): string;
}

const postgresUpsert = (cols: readonly string[]) =>
  ` ON CONFLICT (name) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;

const DIALECTS: Readonly<Record<SqlEngine, Dialect>> = {
  postgres: {
    functions: postgresFunctions,
    setup: postgresSetup,
    resetCounter: postgresResetCounter,
    counterDrop: `DROP SEQUENCE IF EXISTS ${SQL_SEQUENCE}`,
    upsert: postgresUpsert,
    recordFirst: (_key, node) => [
      ...(node === undefined
        ? []
        : [
            `INSERT INTO idforge_settings (name, value) VALUES ('node', '${node}')${postgresUpsert(['value'])}`,
          ]),
      postgresRecordDatabase(),
    ],
    dropFunction: (f) => `DROP FUNCTION IF EXISTS ${f.name}(${f.args})`,
    // One transaction.
    text: (script, head) => {
      const body = [
        ...script.setup,
        postgresResetIfOtherLayout(script.layoutKey),
        ...script.functions.map((f) => f.sql),
        ...script.record,
      ];
      return `${head}BEGIN;\n${body.map((s) => `${s};\n`).join('')}COMMIT;\n`;
    },
  },
  mariadb: {
    functions: mariadbFunctions,
    setup: mariadbSetup,
    // The counter's row is reset by the statement of `record` that switches the layout.
    resetCounter: () => [],
    counterDrop: `DROP TABLE IF EXISTS ${MARIADB_COUNTER}`,
    upsert: (cols) =>
      ` ON DUPLICATE KEY UPDATE ${cols.map((c) => `${c} = VALUES(${c})`).join(', ')}`,
    // The node lives in the counter's row, switched with the layout in one statement.
    recordFirst: (key, node) => mariadbSwitch(key, node),
    dropFunction: (f) => `DROP FUNCTION IF EXISTS ${f.name}`,
    // DDL autocommits: step by step, the version row last, `DELIMITER //` around the bodies.
    text: (script, head) => {
      const plain = (s: string) => `${s};\n`;
      return (
        head +
        script.setup.map(plain).join('') +
        `DELIMITER //\n${script.functions.map((f) => `${f.sql} //\n`).join('')}DELIMITER ;\n` +
        script.record.map(plain).join('')
      );
    },
  },
};

/**
 * The script for `engine` and `options.layout`. Throws `RangeError` for an unknown engine, a
 * layout whose time and sequence take more than 62 bits, or a node out of the layout's range.
 * Pure.
 */
export function sqlFunctions(engine: SqlEngine, options: SqlFunctionsOptions): SqlScript {
  if (!SQL_ENGINES.includes(engine)) {
    throw new RangeError(`engine: expected one of ${SQL_ENGINES.join(', ')}, got "${engine}"`);
  }
  const dialect = DIALECTS[engine];
  const l = layoutSql(options.layout);
  const nodeFields = options.node === undefined ? undefined : nodeFieldsOf(l, options.node);
  const key = layoutKey(options.layout);
  const functions = dialect.functions(l);
  return {
    engine,
    version: SQL_FUNCTIONS_VERSION,
    layoutKey: key,
    layout: options.layout.name,
    node: options.node,
    nodeFields,
    setup: dialect.setup(),
    resetCounter: dialect.resetCounter(),
    functions,
    record: recordStatements(dialect, l, key, options.node),
    remove: removeStatements(dialect, functions),
  };
}

function recordStatements(
  dialect: Dialect,
  l: LayoutSql,
  key: string,
  node: number | undefined,
): string[] {
  const values = `'functions', ${SQL_FUNCTIONS_VERSION}, ${sqlString(l.layout.name)}, ${sqlString(key)}`;
  return [
    ...dialect.recordFirst(key, node),
    `INSERT INTO idforge_sql_version (name, version, layout, layout_key) VALUES (${values})` +
      dialect.upsert(['version', 'layout', 'layout_key']),
  ];
}

function removeStatements(dialect: Dialect, functions: readonly SqlFunction[]): string[] {
  return [
    ...functions.map((f) => dialect.dropFunction(f)),
    dialect.counterDrop,
    ...SQL_TABLES.map((t) => `DROP TABLE IF EXISTS ${t}`),
  ];
}

/**
 * The script as one text a database client runs (psql, mariadb): PostgreSQL in one
 * transaction; MariaDB with `DELIMITER //` around the function bodies (DDL autocommits there,
 * so it runs step by step, the version row last).
 */
export function sqlText(script: SqlScript): string {
  const head = `-- idforge SQL functions v${script.version}, layout ${script.layoutKey}\n`;
  return DIALECTS[script.engine].text(script, head);
}
