/**
 * Who closes a store's client. A store built from the caller's own client (a `pg.Pool`, a
 * mysql2 pool, an ioredis or etcd3 client, a better-sqlite3 `Database`) never closes it: the
 * application that opened it does (the kysely / knex convention). The `open…` functions, which
 * open the client themselves, mark the options with {@link OWNED} so that `close()` closes it.
 * The symbol is not exported from `@idforge/stores`: a caller cannot hand a client over by
 * mistake.
 */
export const OWNED: unique symbol = Symbol('idforge: the store opened its client');

/** Set only by idforge's own `open…` functions. */
export interface Ownership {
  readonly [OWNED]?: true;
}

/** The address a store built from the caller's client reports in errors, unless given one. */
export function callerAddress(backend: string, address: string | undefined): string {
  if (address === undefined) return `${backend} (the caller's client)`;
  if (typeof address !== 'string') {
    throw new TypeError(`address: expected a string, got ${typeof address}`);
  }
  return address;
}
