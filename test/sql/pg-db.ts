// A PostgreSQL database of one test file's own with idforge's SQL functions installed, for the
// PostgreSQL fault checks of the in-database functions (postgres-*.test.ts): created on the
// given server, dropped at the end, with plain node-postgres clients (no pool: each client is
// one backend, which the checks cancel, time out or watch in pg_locks).
import { LAYOUTS, type Layout } from 'idforge';
import { sqlFunctions } from 'idforge/sql';
import pg from 'pg';
import { openPostgresSqlFunctions } from '../../packages/stores/src/postgres/sql-functions.js';

export const PG_BASE =
  process.env.IDFORGE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface PgDb {
  /** The database's URL. */
  readonly url: string;
  readonly name: string;
  /** A new connected client (one backend); closed by `drop` if still open. */
  client(): Promise<pg.Client>;
  /** Creates the database and installs the functions of `layout` with `node`. */
  create(layout?: Layout, node?: number): Promise<void>;
  /** Closes every client still open and drops the database. */
  drop(): Promise<void>;
}

/** Runs `fn` on a client of `url`'s server, closed after. */
export async function onServer<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Installs the functions of `layout` with `node` in `url`, as `idforge sql --apply` does. */
export async function applyFunctions(url: string, layout: Layout, node: number) {
  const target = await openPostgresSqlFunctions(url);
  try {
    return await target.apply(sqlFunctions('postgres', { layout, node }));
  } finally {
    await target.close();
  }
}

/** `name` (unique per process: the pid is appended) on the server of `base`. */
export function pgDb(base: string, name: string): PgDb {
  const db = `${name}_${process.pid}`;
  const url = new URL(base);
  url.pathname = `/${db}`;
  const clients = new Set<pg.Client>();
  return {
    url: url.toString(),
    name: db,
    async client() {
      const c = new pg.Client({ connectionString: url.toString() });
      c.on('error', () => undefined); // a backend killed by the check ends here, not the run
      await c.connect();
      clients.add(c);
      c.once('end', () => clients.delete(c));
      return c;
    },
    async create(layout = LAYOUTS.default!, node = 1) {
      await onServer(base, (c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
      await onServer(base, (c) => c.query(`CREATE DATABASE ${db}`));
      await applyFunctions(url.toString(), layout, node);
    },
    async drop() {
      await Promise.all([...clients].map((c) => c.end().catch(() => undefined)));
      await onServer(base, (c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
    },
  };
}

/** The SQLSTATE of a driver error, or undefined. */
export function sqlState(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}
