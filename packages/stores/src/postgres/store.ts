/**
 * What the PostgreSQL stores (leases, segments, marks) share: how one is built on a pool, how
 * it closes, and how its opener hands it a pool of its own. Each store adds only its SQL and
 * its methods.
 */
import { callerAddress, OWNED, type Ownership } from '../owned.js';
import {
  connectPostgres,
  DEFAULT_POSTGRES_NAMESPACE,
  endPool,
  type PostgresClientOptions,
  type PostgresStoreOptions,
} from './connect.js';
import { PgExecutor } from './executor.js';

/**
 * A PostgreSQL store on a node-postgres `pg.Pool`. Two ways to build one, as every idforge
 * store: on the application's own client (`new PostgresLeaseStore({ pool, namespace })`), which
 * `close()` leaves open (the caller closes it); or from a URL with its `open…` function
 * ({@link openPostgresStore}), whose client the store opened and `close()` closes.
 */
export abstract class PostgresStore {
  readonly backend = 'postgres';
  readonly address: string;
  /** The PostgreSQL schema holding this store's tables. */
  readonly namespace: string;
  readonly #db: PgExecutor;
  readonly #owned: boolean;
  #closed: Promise<void> | null = null;

  /**
   * A store on `options.pool`, the caller's (see {@link PostgresClientOptions}): `close()`
   * leaves that pool open, unless the store's opener made it. The namespace defaults to
   * `idforge`; each store's statements throw `RangeError` when it is not a valid schema name
   * (see quoteNamespace).
   */
  constructor(options: PostgresClientOptions & Ownership) {
    this.namespace = options.namespace ?? DEFAULT_POSTGRES_NAMESPACE;
    this.address = callerAddress('postgres', options.address);
    this.#owned = options[OWNED] === true;
    this.#db = new PgExecutor(options.pool, this.address);
  }

  /** How the store runs its statements (executor.ts). */
  protected get db(): PgExecutor {
    return this.#db;
  }

  /** Ends the pool if the store opened it (waiting for calls in flight). Idempotent. */
  close(): Promise<void> {
    this.#closed ??= endPool(this.#db.pool, this.#owned, this.address);
    return this.#closed;
  }
}

/**
 * The opener of every PostgreSQL store: {@link connectPostgres} (the shared pool settings,
 * `synchronous_commit = on` included, and the server's answer checked), then `Store` on that
 * pool, which it owns: `close()` ends it. Throws and rejects as connectPostgres does.
 */
export async function openPostgresStore<S>(
  Store: new (options: PostgresClientOptions & Ownership) => S,
  url: string,
  options: PostgresStoreOptions,
): Promise<S> {
  const { pool, address, namespace } = await connectPostgres(url, options);
  return new Store({ pool, address, namespace, [OWNED]: true });
}
