/**
 * MariaDB holds idforge's SQL functions (`idforge sql --store mysql://… --apply`). MariaDB
 * commits each DDL statement on its own, so no transaction can hold an install; the steps are
 * ordered instead so that a failure leaves the old version working: (1) every new function
 * is compiled under a scratch name (`idforge_zz_…`, dropped right after), so a function that
 * does not compile stops the install before anything is replaced; (2) the tables and the
 * counter are created if missing; (3) the functions are replaced one by one (CREATE OR
 * REPLACE, each atomic); (4) one UPDATE of the counter's row switches the layout and the node
 * (and resets the counter when the layout changes): a new idforge_snowflake() refuses until
 * then and an old one refuses after, so sessions minting meanwhile never mix the two; (5) the
 * version row is written last, so an install cut short reads as the old version and is
 * completed by applying again. Needs MariaDB 10.10 or later
 * (RANDOM_BYTES, Aria); MySQL is refused before anything is created.
 */
import {
  type InstalledSqlFunctions,
  isSameInstall,
  MARIADB_DATABASE_IDENTITY,
  type SqlApplyResult,
  type SqlFunctionsTarget,
  type SqlScript,
} from 'idforge/sql';
import { connectMysql, type MysqlPool } from './connect.js';

const SCRATCH = 'idforge_zz_';
/** The Snowflake counter's table (MARIADB_COUNTER of idforge's sql/mariadb.ts, not exported). */
const MARIADB_COUNTER = 'idforge_snowflake_counter';

interface VersionRow {
  version: number | string;
  layout: string;
  layout_key: string;
  node: string | null;
}

/** The server's version when it is MariaDB 10.10 or later; a `RangeError` otherwise. */
export function checkMariadbVersion(version: string, address: string): void {
  const m = /^(\d+)\.(\d+)/.exec(version);
  const major = Number(m?.[1] ?? 0);
  const minor = Number(m?.[2] ?? 0);
  if (!/mariadb/i.test(version) || major < 10 || (major === 10 && minor < 10)) {
    throw new RangeError(
      `--store: expected MariaDB 10.10 or later for idforge sql (RANDOM_BYTES, Aria), got ` +
        `${version} at ${address}`,
    );
  }
}

/** Installs, upgrades and removes idforge's functions in one MariaDB database. */
export class MysqlSqlFunctions implements SqlFunctionsTarget {
  readonly engine = 'mariadb';
  readonly address: string;
  readonly #db: MysqlPool;

  constructor(db: MysqlPool) {
    this.#db = db;
    this.address = db.address;
  }

  async installed(): Promise<InstalledSqlFunctions | undefined> {
    const [present] = await this.#db.rows<{ n: number | string; v2: number | string }>(
      'sql installed',
      "SELECT (SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'idforge_sql_version') AS n, " +
        `(SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${MARIADB_COUNTER}' AND column_name = 'node') AS v2`,
    );
    if (Number(present?.n ?? 0) === 0) return undefined;
    // From v2 the node lives in the counter's row (switched with the layout); v1 kept it in
    // idforge_settings.
    const node =
      Number(present?.v2 ?? 0) > 0
        ? `(SELECT node FROM ${MARIADB_COUNTER} WHERE id = 1)`
        : "(SELECT value FROM idforge_settings WHERE name = 'node')";
    const rows = await this.#db.rows<VersionRow>(
      'sql installed',
      `SELECT version, layout, layout_key, ${node} AS node FROM idforge_sql_version WHERE name = 'functions'`,
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      version: Number(row.version),
      layout: row.layout,
      layoutKey: row.layout_key,
      node: row.node === null ? undefined : Number(row.node),
    };
  }

  async apply(script: SqlScript): Promise<SqlApplyResult> {
    if (script.engine !== 'mariadb') {
      throw new RangeError(`script: expected a mariadb script, got "${script.engine}"`);
    }
    const previous = await this.installed();
    // The same install with a node given is not 'unchanged' on a copy: giving the node there
    // chooses it for this database, which the switch records.
    if (isSameInstall(previous, script) && (script.node === undefined || (await this.#isHome()))) {
      return { action: 'unchanged', previous, counterReset: false };
    }
    await this.#compile(script);
    const counterReset = previous !== undefined && previous.layoutKey !== script.layoutKey;
    const steps = [
      ...(counterReset ? script.resetCounter : []),
      ...script.setup,
      ...script.functions.map((f) => f.sql),
      ...script.record,
    ];
    await this.#db.withConnection('sql apply', async (q) => {
      for (const sql of steps) await q(sql);
    });
    return { action: previous === undefined ? 'installed' : 'upgraded', previous, counterReset };
  }

  /** Whether the node in the counter's row was chosen for this database (not a copy's). */
  async #isHome(): Promise<boolean> {
    const rows = await this.#db.rows<{ home: number | string | null }>(
      'sql installed',
      `SELECT home <=> ${MARIADB_DATABASE_IDENTITY} AS home FROM ${MARIADB_COUNTER} WHERE id = 1`,
    );
    return Number(rows[0]?.home ?? 0) === 1;
  }

  /** Each function compiled under its scratch name, then dropped; the first failure throws. */
  async #compile(script: SqlScript): Promise<void> {
    await this.#db.withConnection('sql apply (compile check)', async (q) => {
      try {
        for (const f of script.functions) {
          await q(f.sql.replace(`FUNCTION ${f.name}(`, `FUNCTION ${SCRATCH}${f.name}(`));
        }
      } finally {
        for (const f of script.functions) await q(`DROP FUNCTION IF EXISTS ${SCRATCH}${f.name}`);
      }
    });
  }

  async remove(script: SqlScript): Promise<boolean> {
    const was = (await this.installed()) !== undefined;
    await this.#db.withConnection('sql remove', async (q) => {
      for (const sql of script.remove) await q(sql);
    });
    return was;
  }

  close(): Promise<void> {
    return this.#db.end();
  }
}

/**
 * Connects to `url` for installing functions and checks the server is MariaDB 10.10+.
 * Rejects with `RangeError` for a malformed URL or another server (nothing is created),
 * `StoreUnavailableError` when the server cannot be used.
 */
export async function openMysqlSqlFunctions(url: string): Promise<MysqlSqlFunctions> {
  const db = await connectMysql(url, { queryTimeoutMs: 60_000 });
  try {
    const rows = await db.rows<{ v: string }>('connect', 'SELECT VERSION() AS v');
    checkMariadbVersion(rows[0]?.v ?? '', db.address);
  } catch (error) {
    await db.end().catch(() => {});
    throw error;
  }
  return new MysqlSqlFunctions(db);
}
