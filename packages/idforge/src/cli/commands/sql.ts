/**
 * `idforge sql`: prints the SQL of idforge's in-database functions (no server needed), or
 * installs, upgrades (`--apply`) and removes (`--remove`) them in the database `--store`
 * names, through @idforge/stores (lent by the host, as `gen --store` is: the library's bin
 * carries no store code). Everything is checked before a connection opens, so a bad input
 * creates nothing.
 */
import type { Layout } from '../../core/index.js';
import {
  layoutSql,
  SQL_ENGINES,
  type SqlApplyResult,
  type SqlEngine,
  type SqlFunctionsTarget,
  type SqlScript,
  sqlFunctions,
  sqlText,
} from '../../sql/index.js';
import { integer, layoutFlag, type Options, type OptionValues, parseFields } from '../args.js';
import { type CliHost, type Command, loadPackage, STORES_PACKAGE } from '../host.js';
import { type CliIo, UsageError } from '../io.js';

export const sqlHelp = `Usage: idforge sql [options]

Prints the SQL that installs idforge's functions in a database (PostgreSQL 12+, MariaDB
10.10+), or installs them there (--apply) or removes them (--remove). Functions:
idforge_uuidv7(), idforge_uuidv7_at(ts), idforge_snowflake() (of --layout, its node read
from the install's state: the idforge_settings table on PostgreSQL, the counter's row on
MariaDB), idforge_time(id) (Snowflake, UUIDv7, ULID), and
idforge_uuidv7_lowest/highest/bounds, idforge_snowflake_lowest/highest/bounds for range
scans. Versioned: --apply again with the same version, layout and node changes nothing;
another layout or node upgrades (a new layout restarts the Snowflake counter). SQLite has no
stored functions: register them on a connection with registerIdforgeFunctions(db, { layout,
node }) from @idforge/stores. See docs/in-database.md.

Options:
  --engine E             the SQL to print: postgres (default) or mariadb
  --layout NAME          Snowflake layout (default "default"; see idforge layouts)
  --node N               the node number idforge_snowflake() puts in its IDs: every node
                         field of the layout, most significant first (0 to maxNodes - 1)
  --field NAME=VALUE     the node by field instead (twitter-2010: --field datacenter=1
                         --field worker=3); repeat for each node field
  --store URL            the database: postgres://user@host:port/db or mysql://… (MariaDB)
  --apply                install or upgrade the functions in --store, and write the node
  --remove               drop every function, table and counter --apply creates, nothing else
  --json                 with --apply or --remove: one JSON object

Examples:
  idforge sql --node 1 > idforge.sql && psql -1 -f idforge.sql mydb
  idforge sql --store postgres://postgres@127.0.0.1:5432/app --apply --node 1
  idforge sql --store mysql://root@127.0.0.1:3306/app --apply --layout twitter-2010 --node 33
`;

const sqlOptions = {
  engine: { type: 'string' },
  layout: { type: 'string' },
  node: { type: 'string' },
  field: { type: 'string', multiple: true },
  store: { type: 'string' },
  apply: { type: 'boolean' },
  remove: { type: 'boolean' },
  json: { type: 'boolean' },
} as const satisfies Options;

type SqlValues = OptionValues<typeof sqlOptions>;

/** `idforge sql`. */
export const sqlCli: Command<typeof sqlOptions> = {
  summary: [
    'sql',
    'SQL functions minting and decoding IDs inside PostgreSQL or MariaDB\n(prints the SQL; --store URL --apply installs, --remove removes)',
  ],
  help: sqlHelp,
  options: sqlOptions,
  run: sqlCommand,
};

/** The composite node of `--node` or `--field`, checked against the layout; undefined if neither. */
function nodeOf(values: SqlValues, layout: Layout): number | undefined {
  const max = layoutSql(layout).maxNode;
  if (values.node !== undefined && values.field !== undefined) {
    throw new UsageError('--node and --field: give one or the other');
  }
  if (values.node !== undefined) {
    if (layout.nodeFields.length === 0) {
      throw new UsageError(`--node: layout "${layout.name}" has no node field`);
    }
    return integer('--node', values.node, 0, max);
  }
  if (values.field === undefined) return undefined;
  const fields = parseFields(values.field, layout);
  const l = layoutSql(layout);
  const missing = l.nodeFields.filter((f) => !(f.name in fields)).map((f) => f.name);
  if (missing.length > 0) throw new UsageError(`--field: give ${missing.join(', ')} too`);
  return l.nodeFields.reduce((n, f) => n + fields[f.name]! * 2 ** f.offset, 0);
}

function engineOf(values: SqlValues): SqlEngine {
  const engine = values.engine ?? 'postgres';
  if (!(SQL_ENGINES as readonly string[]).includes(engine)) {
    throw new UsageError(`--engine: expected ${SQL_ENGINES.join(' or ')}, got "${engine}"`);
  }
  return engine as SqlEngine;
}

/** `idforge sql`: returns the exit code. */
export async function sqlCommand(
  positionals: string[],
  values: SqlValues,
  io: CliIo,
  host: CliHost,
): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const layout = layoutFlag(values.layout);
  const node = nodeOf(values, layout);
  const options = { layout, ...(node === undefined ? {} : { node }) };
  // Checked for every engine before any connection: a layout SQL cannot hold is refused here.
  const scripts = Object.fromEntries(SQL_ENGINES.map((e) => [e, sqlFunctions(e, options)]));
  if (values.apply === true && values.remove === true) {
    throw new UsageError('--apply and --remove: give one or the other');
  }
  if (values.apply !== true && values.remove !== true) {
    if (values.store !== undefined) throw new UsageError('--store: give --apply or --remove too');
    if (values.json === true) throw new UsageError('--json: only with --apply or --remove');
    io.stdout.write(sqlText(scripts[engineOf(values)]!));
    return 0;
  }
  if (values.store === undefined || values.store === '') {
    throw new UsageError(`--${values.apply === true ? 'apply' : 'remove'}: give --store URL`);
  }
  if (values.engine !== undefined) throw new UsageError('--engine: the --store URL decides it');
  const stores = await loadPackage(STORES_PACKAGE, 'sql --store', host.stores);
  if (stores.openSqlFunctions === undefined) {
    throw new UsageError(`sql --store needs a newer ${STORES_PACKAGE}`);
  }
  const target = await stores.openSqlFunctions(values.store);
  try {
    const script = scripts[target.engine]!;
    const line =
      values.apply === true
        ? applied(target, script, await target.apply(script))
        : removed(target, await target.remove(script));
    io.stdout.write(values.json === true ? `${JSON.stringify(line.json)}\n` : `${line.text}\n`);
    return 0;
  } finally {
    await target.close();
  }
}

interface Said {
  readonly text: string;
  readonly json: Record<string, unknown>;
}

function what(version: number, layout: string, node: number | undefined): string {
  return `v${version} (layout ${layout}, ${node === undefined ? 'no node set' : `node ${node}`})`;
}

function applied(target: SqlFunctionsTarget, s: SqlScript, r: SqlApplyResult): Said {
  const was = r.previous;
  const node = s.node ?? was?.node;
  const now = what(s.version, s.layout, node);
  const text =
    r.action === 'unchanged'
      ? `unchanged: idforge SQL functions ${now} are already installed in ${target.address}`
      : `${r.action} idforge SQL functions ${now} in ${target.address}` +
        (was === undefined ? '' : `, over ${what(was.version, was.layout, was.node)}`) +
        (r.counterReset
          ? '; the layout changed: the Snowflake counter restarts from the clock'
          : '') +
        (node === undefined ? '; idforge_snowflake() refuses until --node N is applied' : '');
  return {
    text,
    json: {
      action: r.action,
      engine: target.engine,
      address: target.address,
      version: s.version,
      layout: s.layout,
      node: node ?? null,
      counterReset: r.counterReset,
      previous: was ?? null,
    },
  };
}

function removed(target: SqlFunctionsTarget, was: boolean): Said {
  return {
    text: was
      ? `removed idforge SQL functions from ${target.address}`
      : `nothing to remove: idforge SQL functions are not installed in ${target.address}`,
    json: { action: was ? 'removed' : 'absent', engine: target.engine, address: target.address },
  };
}
