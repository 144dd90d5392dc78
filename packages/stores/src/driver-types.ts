/**
 * The drivers' clients as the stores' declarations name them: structural types of what an
 * application's own client must offer (the members the stores use), so that the published
 * declarations of @idforge/stores refer to no driver package. A project compiles against them
 * with none of pg, mysql2, ioredis, etcd3, better-sqlite3 or classic-level installed (nor their
 * types), and the real clients (a `pg.Pool`, a mysql2/promise pool, an ioredis `Redis`, an etcd3
 * `Etcd3`, a better-sqlite3 `Database`, a `ClassicLevel`) are assignable to them.
 *
 * Inside, the stores keep using each driver's own types: a class casts the client it is given
 * to the driver's type once, in its constructor, and keeps it in a private field; function
 * bodies and unexported code may name driver types freely. What an exported declaration names
 * comes from this file (test/stores/declarations.test.ts checks the emitted declarations).
 *
 * Members are methods, so that a driver's richer signatures (overloads, generics, callbacks)
 * still match; results are described only as far as the stores' exported code reads them.
 */

// Buffer is Node's: the declarations name @types/node, for projects whose TypeScript does not
// load it by itself (TypeScript 6 and later default to `types: []`).
/// <reference types="node" preserve="true" />

// ---------------------------------------------------------------------------------------------
// PostgreSQL (node-postgres)

/** What a node-postgres query resolves to, as far as the stores read it. */
export interface PgQueryResult {
  readonly rows: unknown[];
  readonly rowCount: number | null;
}

/** A connection checked out of a {@link PgPool} (node-postgres `PoolClient`). */
export interface PgPoolClient {
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  /** Returns the connection to the pool; `true` (or an error) destroys it instead. */
  release(destroy?: boolean | Error): void;
}

/** A node-postgres `pg.Pool` (the PostgreSQL stores, ticket server and backfill use one). */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// MariaDB / MySQL (mysql2)

/** One statement as the MariaDB/MySQL stores send it (mysql2's `QueryOptions`). */
export interface MysqlQuery {
  readonly sql: string;
  readonly values?: unknown;
  /** ms */
  readonly timeout?: number;
}

/** A connection checked out of a {@link MysqlPromisePool} (mysql2/promise `PoolConnection`). */
export interface MysqlPoolConnection {
  query(options: MysqlQuery, values?: unknown): Promise<unknown>;
  release(): void;
  destroy(): void;
}

/** A mysql2/promise pool (`createPool` of `mysql2/promise`). */
export interface MysqlPromisePool {
  query(options: MysqlQuery, values?: unknown): Promise<unknown>;
  getConnection(): Promise<MysqlPoolConnection>;
  escape(value: unknown): string;
  end(): Promise<void>;
  /**
   * mysql2's callback pool underneath: the stores read its connection settings (see
   * MysqlClientOptions) and listen for its new connections.
   */
  readonly pool: {
    on(event: 'connection', listener: (connection: MysqlPoolConnection) => void): unknown;
  };
}

// ---------------------------------------------------------------------------------------------
// Redis (ioredis)

/** An ioredis client (`new Redis(...)`), with the commands the Redis stores send. */
export interface RedisClient {
  /** `'ready'` while connected. */
  readonly status: string;
  /** The options it was created with: the counter store requires `stringNumbers: true`. */
  readonly options: { readonly stringNumbers?: boolean };
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
  get(key: string): Promise<unknown>;
  set(key: string, value: string, nx: 'NX'): Promise<unknown>;
  incrby(key: string, increment: number): Promise<unknown>;
  time(): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
}

// ---------------------------------------------------------------------------------------------
// etcd (etcd3): the client, and the raw etcd v3 messages the lease store exchanges through it

/** gRPC call options: the stores give every call a deadline (unix ms). */
export interface EtcdCallOptions {
  readonly deadline?: Date | number;
}

/** A key-value pair as etcd returns it. */
export interface EtcdKeyValue {
  readonly key: Buffer;
  readonly value: Buffer;
  /** The etcd lease the key is attached to, '0' for none. */
  readonly lease: string;
  readonly mod_revision: string;
}

/** A range read: one key, or `[key, range_end)`. */
export interface EtcdRangeRequest {
  key?: Buffer;
  range_end?: Buffer;
  keys_only?: boolean;
}

export interface EtcdRangeResponse {
  readonly kvs: readonly EtcdKeyValue[];
}

/** One operation of a transaction: a range, a put or a delete. */
export interface EtcdRequestOp {
  request_range?: EtcdRangeRequest;
  request_put?: { key?: Buffer; value?: Buffer; lease?: string };
  request_delete_range?: { key?: Buffer; prev_kv?: boolean };
}

/** The answer to one {@link EtcdRequestOp}: the field of its kind is set. */
export interface EtcdResponseOp {
  readonly response_range?: EtcdRangeResponse;
  readonly response_delete_range?: { readonly prev_kvs: readonly EtcdKeyValue[] };
}

export interface EtcdTxnResponse {
  readonly succeeded: boolean;
  readonly responses: readonly EtcdResponseOp[];
}

/** An etcd3 client (`new Etcd3(...)`): the raw RPC clients the lease store calls. */
export interface EtcdClient {
  readonly kv: {
    range(request: EtcdRangeRequest, options?: EtcdCallOptions): Promise<EtcdRangeResponse>;
    txn(request: object, options?: EtcdCallOptions): Promise<EtcdTxnResponse>;
  };
  readonly leaseClient: {
    leaseGrant(
      request: { TTL: number },
      options?: EtcdCallOptions,
    ): Promise<{ readonly ID: string }>;
    leaseRevoke(request: { ID: string }, options?: EtcdCallOptions): Promise<unknown>;
    leaseKeepAlive(options?: EtcdCallOptions): Promise<unknown>;
    leaseTimeToLive(
      request: { ID: string },
      options?: EtcdCallOptions,
    ): Promise<{ readonly TTL: string }>;
  };
  readonly maintenance: {
    status(options?: EtcdCallOptions): Promise<unknown>;
  };
  close(): void;
}

/**
 * A fault-handling policy of etcd3 (a cockatiel `IPolicy`): runs each call. `_altReturn`,
 * `onSuccess` and `onFailure` are in cockatiel's type only; etcd3 calls `execute`.
 */
export interface EtcdPolicy {
  readonly _altReturn: never;
  readonly onSuccess: (listener: (event: never) => void) => { dispose(): void };
  readonly onFailure: (listener: (event: never) => void) => { dispose(): void };
  execute<T>(
    fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T,
    signal?: AbortSignal,
  ): Promise<T>;
}

/** The options idforge creates its etcd3 clients with (etcd3's `IOptions`, as far as set). */
export interface EtcdClientSettings {
  hosts: string[];
  dialTimeout: number;
  defaultCallOptions: (context: { readonly isStream: boolean }) => EtcdCallOptions;
  faultHandling: { host: (hostname: string) => EtcdPolicy; global: EtcdPolicy };
}

// ---------------------------------------------------------------------------------------------
// SQLite (better-sqlite3)

/** A better-sqlite3 `Database` (`new Database(path)`), open. */
export interface SqliteDatabase {
  /** The file name the database was opened with: the store's default address. */
  readonly name: string;
  readonly open: boolean;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  close(): unknown;
}

/** better-sqlite3's `Database` class, as the stores open a file with it. */
export type SqliteDatabaseClass = new (
  path: string,
  options: { readonly timeout: number; readonly fileMustExist: boolean },
) => SqliteDatabase;

// ---------------------------------------------------------------------------------------------
// LevelDB (classic-level), for `idforge bench db`

/** A `ClassicLevel<Buffer, Buffer>` database, as the bench engine writes and measures it. */
export interface LevelDatabase {
  open(): Promise<void>;
  batch(operations: { type: 'put'; key: Buffer; value: Buffer }[]): Promise<void>;
  compactRange(start: Buffer, end: Buffer): Promise<void>;
  getProperty(property: string): string;
  close(): Promise<void>;
}
