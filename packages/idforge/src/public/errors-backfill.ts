/**
 * Refusals of `idforge backfill` (idforge/public's `runBackfill`): the table cannot be given a
 * public ID column the safe way, and nothing was changed because of it. Each names what was
 * found and the fix; none goes away by retrying. Part of the one catalogue: codes in
 * `errors.ts`, each documented in `docs/errors.md`. `address` never carries a password.
 */
import { IdforgeError } from '../core/index.js';

/**
 * The table has no usable key to walk it by: the key column (`--key-column`, default `id`) is
 * missing, not unique, nullable, or not an integer or 16-byte/uuid column. A backfill fills
 * rows in batches ordered by that key, so it must identify each row once and order them.
 * `found` describes the key column as found (or "no column"); `candidates` lists the table's
 * columns that would do.
 */
export class BackfillNoKeyError extends IdforgeError {
  readonly backend: string;
  readonly address: string;
  readonly table: string;
  readonly keyColumn: string;
  readonly found: string;
  readonly candidates: readonly string[];

  constructor(
    backend: string,
    address: string,
    table: string,
    keyColumn: string,
    found: string,
    candidates: readonly string[],
  ) {
    const fix =
      candidates.length > 0
        ? `Pass --key-column with one of: ${candidates.join(', ')}.`
        : 'Give the table a unique NOT NULL integer or uuid column first (a primary key), then rerun.';
    super(
      'IDF_BACKFILL_NO_KEY',
      `table ${table} in the ${backend} database at ${address} has no usable key: its key ` +
        `column "${keyColumn}" ${found}. A backfill walks the table in key order in small ` +
        'batches, so the key must be a unique, NOT NULL integer or 16-byte (uuid, BINARY(16)) ' +
        `column. ${fix} Nothing was changed.`,
    );
    this.backend = backend;
    this.address = address;
    this.table = table;
    this.keyColumn = keyColumn;
    this.found = found;
    this.candidates = candidates;
  }
}

/** Why a table was refused. */
export type BackfillTableReason =
  | 'missing-table'
  | 'column-type'
  | 'locked'
  | 'duplicates'
  | 'time-column'
  | 'untimed';

/**
 * The table or its column cannot take the backfill: `missing-table` (no such table),
 * `column-type` (the column exists in a type that cannot hold the scheme's values, e.g. a UUID
 * column of CHAR(36), or text too short or case-insensitive for public IDs), `duplicates` (the
 * unique index could not be built because the column already holds duplicate values, written
 * by something else), `locked` (adding the column waited its few seconds for the table's lock
 * behind a long transaction, and gave up rather than queue the application behind it),
 * `time-column` (`--at-column` names no column, or one that holds no point in time),
 * `untimed` (rows to fill have no time in `--at-column`: a backdated ID needs one). `found`
 * says what was found.
 */
export class BackfillTableError extends IdforgeError {
  readonly backend: string;
  readonly address: string;
  readonly table: string;
  readonly column: string;
  readonly reason: BackfillTableReason;
  readonly found: string;

  constructor(
    backend: string,
    address: string,
    table: string,
    column: string,
    reason: BackfillTableReason,
    found: string,
    options: { cause?: unknown } = {},
  ) {
    super('IDF_BACKFILL_TABLE', tableMessage(backend, address, table, column, reason, found), {
      cause: options.cause,
    });
    this.backend = backend;
    this.address = address;
    this.table = table;
    this.column = column;
    this.reason = reason;
    this.found = found;
  }
}

function tableMessage(
  backend: string,
  address: string,
  table: string,
  column: string,
  reason: BackfillTableReason,
  found: string,
): string {
  const where = `the ${backend} database at ${address}`;
  switch (reason) {
    case 'missing-table':
      return `${where} has no table ${table} (${found}). Check --table (and the database in --store); nothing was changed.`;
    case 'column-type':
      return (
        `column ${column} of ${table} in ${where} is ${found}, which cannot hold the scheme's ` +
        'values. Choose another --column (the backfill adds it), or drop this one if it holds ' +
        'nothing yet; nothing was changed.'
      );
    case 'locked':
      return (
        `adding column ${column} to ${table} in ${where} gave up waiting for the table's lock ` +
        `(${found}): a long transaction holds it, and the backfill never queues the ` +
        "application's queries behind one. Nothing was changed; rerun once it ends " +
        '(pg_stat_activity or SHOW PROCESSLIST shows it).'
      );
    case 'duplicates':
      return (
        `the unique index on ${table}.${column} in ${where} could not be built: ${found}. ` +
        'Values written by something other than the backfill repeat; find them with GROUP BY ' +
        `${column} HAVING count(*) > 1, set the repeats to NULL and rerun (it fills them anew).`
      );
    case 'time-column':
      return (
        `the time column for ${table}.${column} in ${where} ${found}. --at-column must name a ` +
        'timestamp, timestamptz or date column (DATETIME, TIMESTAMP or DATE on MariaDB/MySQL; ' +
        'date-time text on SQLite); nothing was changed.'
      );
    case 'untimed':
      return (
        `${found} in ${table} of ${where}: a backdated ID is minted at its row's own time, ` +
        'so every row to fill needs one. Set it on those rows (or fill them apart), then ' +
        'rerun; nothing was changed by this run for them.'
      );
  }
}
