/**
 * PostgreSQL holds idforge's SQL functions (`idforge sql --store postgres://… --apply`): the
 * script of `sqlFunctions('postgres', …)` (idforge/sql) run in ONE transaction, so a failure
 * at any step leaves the previous version exactly as it was. Concurrent installs take turns
 * on a transaction-level advisory lock. The objects go to the connection's current schema
 * (the first of its search_path, `public` by default).
 */
import {
  type InstalledSqlFunctions,
  isSameInstall,
  PG_DATABASE_IDENTITY,
  type SqlApplyResult,
  type SqlFunctionsTarget,
  type SqlScript,
} from 'idforge/sql';
import type pg from 'pg';
import { storeCall } from '../call.js';
import type { PgPool } from '../driver-types.js';
import type { CallSite } from '../store-error.js';
import { connectPostgres, endPool } from './connect.js';
import { postgresSite } from './rules.js';

/** The advisory lock of installs: "idforgeI" in ASCII (not the Snowflake counter's key). */
const INSTALL_LOCK = 7594309496036357449n;

interface VersionRow {
  version: number;
  layout: string;
  layout_key: string;
  node: string | null;
  /** Whether the database is not the one the install recorded (a copy: see apply). */
  copied: boolean;
}

const READ_VERSION = `SELECT v.version, v.layout, v.layout_key,
  (SELECT value FROM idforge_settings WHERE name = 'node') AS node,
  (SELECT value FROM idforge_settings WHERE name = 'database')
    IS DISTINCT FROM ${PG_DATABASE_IDENTITY} AS copied
  FROM idforge_sql_version v WHERE v.name = 'functions'`;

function installedOf(row: VersionRow | undefined): InstalledSqlFunctions | undefined {
  if (row === undefined) return undefined;
  return {
    version: row.version,
    layout: row.layout,
    layoutKey: row.layout_key,
    node: row.node === null ? undefined : Number(row.node),
  };
}

/** Installs, upgrades and removes idforge's functions in one PostgreSQL database. */
export class PostgresSqlFunctions implements SqlFunctionsTarget {
  readonly engine = 'postgres';
  readonly address: string;
  readonly #pool: pg.Pool;
  readonly #owned: boolean;

  /** Over the caller's pool (never ended by close) unless `owned`. */
  constructor(pool: PgPool, address: string, owned = false) {
    this.#pool = pool as pg.Pool; // node-postgres's own type inside (driver-types.ts)
    this.address = address;
    this.#owned = owned;
  }

  get #site(): CallSite {
    return postgresSite(this.address);
  }

  async installed(): Promise<InstalledSqlFunctions | undefined> {
    return storeCall(this.#site, 'sql installed', async () => {
      const c = await this.#pool.connect();
      try {
        return await this.#read(c);
      } finally {
        c.release();
      }
    });
  }

  async #read(c: pg.PoolClient): Promise<InstalledSqlFunctions | undefined> {
    return installedOf(await this.#row(c));
  }

  async #row(c: pg.PoolClient): Promise<VersionRow | undefined> {
    const { rows } = await c.query<{ t: string | null }>(
      "SELECT to_regclass('idforge_sql_version')::text AS t",
    );
    if (rows[0]?.t === null || rows[0] === undefined) return undefined;
    return (await c.query<VersionRow>(READ_VERSION)).rows[0];
  }

  apply(script: SqlScript): Promise<SqlApplyResult> {
    if (script.engine !== 'postgres') {
      throw new RangeError(`script: expected a postgres script, got "${script.engine}"`);
    }
    return this.#transaction(
      'sql apply',
      async (c): Promise<SqlApplyResult & { commit: boolean }> => {
        const row = await this.#row(c);
        const previous = installedOf(row);
        // A copy of the database the install recorded (CREATE DATABASE … TEMPLATE, a restored
        // dump) is never unchanged: applying records this database, which lets it mint.
        if (isSameInstall(previous, script) && row?.copied !== true) {
          return { action: 'unchanged', previous, counterReset: false, commit: false };
        }
        const counterReset = previous !== undefined && previous.layoutKey !== script.layoutKey;
        const steps = [
          ...(counterReset ? script.resetCounter : []),
          ...script.setup,
          ...script.functions.map((f) => f.sql),
          ...script.record,
        ];
        for (const sql of steps) await c.query(sql);
        const action = previous === undefined ? 'installed' : 'upgraded';
        return { action, previous, counterReset, commit: true };
      },
    );
  }

  async remove(script: SqlScript): Promise<boolean> {
    const r = await this.#transaction('sql remove', async (c) => {
      const was = (await this.#read(c)) !== undefined;
      for (const sql of script.remove) await c.query(sql);
      return { was, commit: true };
    });
    return r.was;
  }

  /** `fn` in one transaction under the install lock; rolled back unless it says commit. */
  async #transaction<T>(
    op: string,
    fn: (c: pg.PoolClient) => Promise<T & { commit: boolean }>,
  ): Promise<T> {
    return storeCall(this.#site, op, async () => {
      const c = await this.#pool.connect();
      try {
        await c.query('BEGIN');
        await c.query(`SELECT pg_advisory_xact_lock(${INSTALL_LOCK})`);
        const { commit, ...rest } = await fn(c);
        await c.query(commit ? 'COMMIT' : 'ROLLBACK');
        return rest as T;
      } catch (error) {
        await c.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        c.release();
      }
    });
  }

  close(): Promise<void> {
    return endPool(this.#pool, this.#owned, this.address);
  }
}

/**
 * Connects to `url` (checked: `SELECT 1`) for installing functions. Rejects as
 * `connectPostgres` does: `RangeError` for a malformed URL, `StoreUnavailableError` when the
 * server cannot be used.
 */
export async function openPostgresSqlFunctions(url: string): Promise<PostgresSqlFunctions> {
  const { pool, address } = await connectPostgres(url, { queryTimeoutMs: 60_000 });
  return new PostgresSqlFunctions(pool, address, true);
}
