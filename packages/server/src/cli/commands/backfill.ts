/**
 * `idforge backfill`: adds a public ID column to a live table and fills it online, by
 * idforge/public's `runBackfill` over the target @idforge/stores opens for the URL. Progress on
 * standard error (a bar on a terminal, a line per tenth otherwise); Ctrl-C stops between two
 * batches (exit 130) and the same command resumes.
 */

import { checkPortUrl, openBackfillTarget } from '@idforge/stores';
import {
  type CliIo,
  type Command,
  integer,
  loadPublicKeys,
  type Options,
  type OptionValues,
  UsageError,
} from 'idforge/cli';
import {
  type BackfillProgress,
  type BackfillReport,
  type BackfillValues,
  MAX_BACKFILL_BATCH,
  PublicIds,
  type PublicKey,
  publicIdValues,
  runBackfill,
  ulidAtValues,
  uuidv4Values,
  uuidv7AtValues,
  uuidv7Values,
} from 'idforge/public';
import { int, ProgressPrinter, rateText } from '../progress.js';

export const backfillHelp = `Usage: idforge backfill --store URL --table T --column C --scheme uuidv7|uuidv4|ulid|public
                        [--at-column created_at] [--key-column id] [--batch 1000]
                        [--key-file F] [--prefix P] [--json]

Adds a public ID column to a live table and fills it without stopping the application: adds
the column if missing (nullable; uuid on PostgreSQL, BINARY(16) on MariaDB/MySQL, BLOB on
SQLite, never CHAR(36); text of the public ID's length for --scheme public), fills it in
batches ordered by the key that each commit on their own (never overwriting a value), catches
rows inserted meanwhile in a last pass, then builds the unique index without blocking writes
(CONCURRENTLY on PostgreSQL, LOCK=NONE on InnoDB). Nothing but the table records progress: a
run stopped at any point is resumed by running it again, and every row is filled once.

Stores:
  sqlite:PATH                       an existing file
  postgres://user@host:port/db      the table by the search_path, or --table schema.name
  mysql://user@host:port/db         MariaDB or MySQL (InnoDB), the URL's database

Options:
  --store URL        the database holding the table (required)
  --table T          the table (required)
  --column C         the column to add and fill (required), e.g. public_id
  --scheme S         uuidv7 (time-ordered, random), uuidv4 (random), ulid (26-character
                     text; with --at-column only) or public (the opaque public ID of each
                     row's key, idforge/public) (required)
  --at-column A      uuidv7 or ulid minted at each row's own time in column A (timestamp,
                     timestamptz or date; DATETIME, TIMESTAMP or DATE; date-time text on
                     SQLite; no time zone reads as UTC), so ORDER BY C sorts as ORDER BY A.
                     Without it a uuidv7 carries the time of the backfill
  --key-column K     the unique NOT NULL integer or uuid column to walk by (default id)
  --batch N          rows per batch and transaction, 1 to ${MAX_BACKFILL_BATCH.toLocaleString('en-US')} (default 1000)
  --key-file F       --scheme public: the key file (default: the keys in $IDFORGE_PUBLIC_KEYS)
  --prefix P         --scheme public: the type prefix of the public IDs (inv → inv_…)
  --json             print the report as JSON

Ctrl-C stops after the current batch (exit 130); what was filled stays, rerun to resume.
First make the application write the column for the rows it inserts: rows inserted with NULL
after the last pass are left for a rerun (the report says how many, and the exit code is 1).

Examples:
  idforge backfill --store postgres://app@db/shop --table orders --column public_id --scheme uuidv7
  idforge backfill --store mysql://root@127.0.0.1/shop --table orders --column public_id --scheme uuidv4 --batch 500
  idforge backfill --store sqlite:app.db --table events --column uid --scheme uuidv7 --at-column created_at
`;

const SCHEMES = ['uuidv7', 'uuidv4', 'ulid', 'public'];
const SCHEME_LIST = 'uuidv7, uuidv4, ulid or public';

/** Why there is no `--scheme snowflake`: said when it is asked for. */
const NO_SNOWFLAKE =
  '--scheme: a Snowflake cannot be backfilled, least of all backdated: it is unique because one ' +
  'worker owns each (time, node) slot and counts within it, and a past slot may hold IDs that ' +
  'worker minted then, with no record of which sequence numbers it used. Use --scheme uuidv7 ' +
  '--at-column created_at for a time-ordered key of old rows';

const backfillOptions = {
  store: { type: 'string' },
  table: { type: 'string' },
  column: { type: 'string' },
  scheme: { type: 'string' },
  'key-column': { type: 'string' },
  batch: { type: 'string' },
  'key-file': { type: 'string' },
  prefix: { type: 'string' },
  'at-column': { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

/** The flags of `idforge backfill` (not idforge/public's BackfillValues, the IDs it writes). */
export type BackfillFlags = OptionValues<typeof backfillOptions>;

/** `idforge backfill --store URL --table T --column C --scheme S`. */
export const backfillCli: Command<typeof backfillOptions> = {
  summary: [
    'backfill',
    'add and fill a public ID column of a live table, online (--store, --table)',
  ],
  help: backfillHelp,
  options: backfillOptions,
  run: backfillCommand,
};

/** What to fill, checked before the database is opened. */
interface Fill {
  readonly url: string;
  readonly table: string;
  readonly column: string;
  readonly scheme: string;
  readonly keyColumn: string;
  readonly batch: number;
  readonly atColumn: string | undefined;
}

/** `idforge backfill`. */
export async function backfillCommand(
  positionals: readonly string[],
  values: BackfillFlags,
  io: CliIo,
): Promise<number> {
  const fill = fillOf(positionals, values);
  const source = valuesFor(fill.scheme, values, io);

  const controller = new AbortController();
  const unsubscribe = io.onSignal?.((signal) => {
    io.stderr.write(`\nidforge backfill: ${signal}: stopping after this batch…\n`);
    controller.abort(new Error(signal));
  });
  const progress = new ProgressPrinter(io);
  let filled = 0;
  let report: BackfillReport;
  try {
    report = await runOn(fill, source, controller.signal, (p) => {
      filled = p.filled;
      showProgress(progress, p);
    });
  } catch (error) {
    progress.end();
    if (controller.signal.aborted) {
      io.stderr.write(
        `idforge backfill: interrupted after filling ${int(filled)} rows (each batch ` +
          'is committed); rerun the same command to resume.\n',
      );
      return 130;
    }
    throw error;
  } finally {
    unsubscribe?.();
  }
  progress.end();
  io.stdout.write(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : summary(report));
  // Rows still NULL: not done, whatever the reason; a script must not build on it.
  return report.complete ? 0 : 1;
}

/** The table, column, scheme and batch of the flags; a mistake is a UsageError. */
function fillOf(positionals: readonly string[], values: BackfillFlags): Fill {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const url = required(values, 'store', 'a database URL');
  const table = required(values, 'table', 'a table name');
  const column = required(values, 'column', 'a column name');
  const scheme = required(values, 'scheme', SCHEME_LIST);
  if (/^snowflake/i.test(scheme)) throw new UsageError(NO_SNOWFLAKE);
  if (!SCHEMES.includes(scheme)) {
    throw new UsageError(`--scheme: expected ${SCHEME_LIST}, got "${scheme}"`);
  }
  const atColumn = atColumnOf(scheme, values, column);
  const keyColumn = typeof values['key-column'] === 'string' ? values['key-column'] : 'id';
  if (keyColumn === column) {
    throw new UsageError(
      `--key-column: expected a column other than --column, got "${column}" for both`,
    );
  }
  const batch =
    typeof values.batch === 'string'
      ? integer('--batch', values.batch, 1, MAX_BACKFILL_BATCH)
      : 1000;
  usage(() => checkPortUrl('backfill', url));
  return { url, table, column, scheme, keyColumn, batch, atColumn };
}

/** `--at-column`, checked against the scheme: uuidv7 may take it, ulid needs it. */
function atColumnOf(scheme: string, values: BackfillFlags, column: string): string | undefined {
  const at = values['at-column'];
  if (at === undefined) {
    if (scheme !== 'ulid') return undefined;
    throw new UsageError(
      "--scheme ulid: expected --at-column (the column of each row's time); for IDs of the backfill's own time use --scheme uuidv7",
    );
  }
  if (scheme !== 'uuidv7' && scheme !== 'ulid') {
    throw new UsageError(
      `--at-column: only with --scheme uuidv7 or ulid (${scheme} values carry no time)`,
    );
  }
  if (at === '' || at === column) {
    throw new UsageError(`--at-column: expected a column other than --column, got "${at}"`);
  }
  return at;
}

/** Opens the database of `fill.url`, runs the backfill on it and closes it, however it ends. */
async function runOn(
  { url, table, column, keyColumn, batch, atColumn }: Fill,
  source: BackfillValues,
  signal: AbortSignal,
  onProgress: (p: BackfillProgress) => void,
): Promise<BackfillReport> {
  const target = await openBackfillTarget(url);
  try {
    return await usage(() =>
      runBackfill(target, {
        table,
        column,
        keyColumn,
        values: source,
        batch,
        signal,
        onProgress,
        ...(atColumn === undefined ? {} : { atColumn }),
      }),
    );
  } finally {
    await target.close();
  }
}

function required(values: BackfillFlags, name: keyof BackfillFlags, what: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name}: expected ${what}`);
  return v;
}

function valuesFor(scheme: string, values: BackfillFlags, io: CliIo): BackfillValues {
  if (scheme !== 'public') {
    for (const flag of ['key-file', 'prefix'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag}: only with --scheme public`);
    }
    const backdated = values['at-column'] !== undefined;
    if (scheme === 'ulid') return ulidAtValues();
    if (scheme === 'uuidv7') return backdated ? uuidv7AtValues() : uuidv7Values();
    return uuidv4Values();
  }
  const ids = new PublicIds({ keys: loadKeys(values, io) });
  const prefix = typeof values.prefix === 'string' ? values.prefix : undefined;
  if (prefix !== undefined) usage(() => ids.encode(0n, prefix));
  return publicIdValues((id) => {
    // Keys come smallest first, so a negative one stops the first batch, before any write.
    if (typeof id === 'bigint' && id < 0n) {
      throw new UsageError(
        `--scheme public: the table has a negative key (${id}); public IDs encode keys 0 to 2^64 - 1: use --scheme uuidv7 or uuidv4 for this table`,
      );
    }
    return ids.encode(id, prefix);
  });
}

/** `--key-file F`, else `$IDFORGE_PUBLIC_KEYS` from io.env (as `idforge public` reads them). */
function loadKeys(values: BackfillFlags, io: CliIo): PublicKey[] {
  const file = values['key-file'];
  return loadPublicKeys(
    typeof file === 'string' ? file : undefined,
    io,
    'idforge backfill',
    '--scheme public: expected --key-file F or $IDFORGE_PUBLIC_KEYS (idforge public keygen writes a key file)',
  );
}

/** `fn()`, its RangeError or TypeError (a malformed name, a URL) as a UsageError. */
function usage<T>(fn: () => T): T {
  try {
    const out = fn();
    if (out instanceof Promise) {
      return out.catch((error: unknown) => {
        throw asUsage(error);
      }) as T;
    }
    return out;
  } catch (error) {
    throw asUsage(error);
  }
}

function asUsage(error: unknown): unknown {
  return error instanceof RangeError || error instanceof TypeError
    ? new UsageError(error.message)
    : error;
}

/** The lines printed at the end. */
function summary(r: BackfillReport): string {
  const name = `${r.table}.${r.column}`;
  if (r.passes === 0 && !r.columnAdded && !r.indexAdded && r.complete) {
    return `${name} is complete: all ${int(r.rowsAtEnd)} rows have a value and the unique index exists; nothing to do.\n`;
  }
  const lines = [
    `${name} (${r.columnType}) on ${r.address}, scheme ${r.scheme}, key ${r.keyColumn}`,
    r.columnAdded
      ? '  column: added'
      : `  column: existed, ${int(r.alreadyFilled)} rows filled before`,
    `  filled: ${int(r.filled)} rows in ${r.passes} pass(es), ${int(r.rowsPerSecond)} rows/s`,
    `  unique index: ${r.indexAdded ? `${r.index} built` : 'existed'}`,
    r.complete
      ? `complete: all ${int(r.rowsAtEnd)} rows have a ${r.column} (${r.seconds.toFixed(1)} s)`
      : `incomplete: ${int(r.remaining)} rows inserted with NULL after the last pass; make the application write ${r.column} on insert, then rerun`,
  ];
  return `${lines.join('\n')}\n`;
}

/** `backfill`'s progress: rows filled per pass, then the index build. */
function showProgress(printer: ProgressPrinter, p: BackfillProgress): void {
  if (p.phase === 'index') {
    printer.line(`filled ${int(p.filled)} rows; building the unique index…`);
    return;
  }
  const pass = p.pass > 1 ? ` (pass ${p.pass})` : '';
  const text = `${int(p.filled)}/${int(p.total)} rows${pass}, ${rateText(p.filled, p.total, p.elapsedMs)}`;
  printer.step(p.filled, p.total, text, p.pass > 1);
}
