// A SQL store whose server is down, silent or stalls mid-session, and the URLs and options it
// refuses before connecting: one suite, run by ./sql-server-outage.test.ts for every port below
// on every SQL server backend the registry lists for it (PostgreSQL leases, segments and marks,
// MariaDB segments), each store opened by its registry opener. The stall goes through a proxy
// to the backend's fixture (test/helpers/backend-fixtures.ts), on a fresh location of it. The
// SQL servers, the ports and the loop over both are also those of ./sql-server-races.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import type { DurableMarkStore, SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import type { Backend, OpenStoreOptions } from '../../packages/stores/src/backend.js';
import { type BackendFixture, forEachBackend } from '../helpers/backend-fixtures.js';
import { openRetrying, unavailable as storeUnavailable } from '../helpers/store-errors.js';
import { closedPort, silentServer, stallableProxy } from '../helpers/tcp.js';
import { owner, request } from './lease-store.js';

/** What differs between the SQL servers: the URLs and namespaces they refuse. */
interface SqlServer {
  /** URLs refused (RangeError) besides those every SQL server refuses. */
  readonly badUrls: readonly string[];
  /** Namespaces refused besides those every SQL server refuses. */
  readonly badNamespaces: readonly string[];
}

/** The SQL server backends this suite runs on, by registry name. */
const SQL_SERVERS: Readonly<Record<string, SqlServer>> = {
  postgres: {
    badUrls: [],
    // A schema name is at most 63 bytes; pg_ names are the server's own.
    badNamespaces: ['pg_catalog', 'a'.repeat(64)],
  },
  mysql: {
    // The database is the URL's path: exactly one segment.
    badUrls: [
      'mysql://root@127.0.0.1:3306',
      'mysql://root@127.0.0.1:3306/',
      'mysql://root@127.0.0.1:3306/a/b',
    ],
    // A table prefix leaves room for the longest table name in 64 characters.
    badNamespaces: ['a'.repeat(32)],
  },
};

/** Whether `backend` is a SQL server this suite knows. */
export const isSqlServer = (backend: Backend): boolean => backend.name in SQL_SERVERS;

/**
 * Runs `suite` for each of `ports` on every SQL server backend the registry lists for that
 * port, with its fixture (forEachBackend narrowed by isSqlServer). Call at the top level of a
 * test file.
 */
export async function forEachSqlServer<P extends SqlPort<SqlStore>>(
  ports: readonly P[],
  suite: (backend: Backend, fx: BackendFixture, port: P) => void,
): Promise<void> {
  for (const port of ports) {
    await forEachBackend(port.port, (backend, fx) => suite(backend, fx, port), isSqlServer);
  }
}

/** A store of the SQL servers: migrated before use, closed after. */
export interface SqlStore {
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** A port of the SQL stores: its name, its noun in the suites' titles, the opener of it. */
export interface SqlPort<S extends SqlStore> {
  readonly port: 'leases' | 'segments' | 'marks';
  /** The store's noun in the suites' titles. */
  readonly noun: string;
  /** The backend's opener of this port. */
  opener(backend: Backend): ((url: string, options: OpenStoreOptions) => Promise<S>) | undefined;
}

export const LEASE_PORT: SqlPort<LeaseStore> = {
  port: 'leases',
  noun: 'lease',
  opener: (backend) => backend.open.leases,
};

export const SEGMENT_PORT: SqlPort<SegmentStore> = {
  port: 'segments',
  noun: 'segment',
  opener: (backend) => backend.open.segments,
};

export const MARK_PORT: SqlPort<DurableMarkStore> = {
  port: 'marks',
  noun: 'mark',
  opener: (backend) => backend.open.marks,
};

/** What the suite does with a store of one port. */
export interface PortCalls<S extends SqlStore> extends SqlPort<S> {
  /** A first call that must succeed on the migrated store before the server stalls. */
  prime(store: S): Promise<void>;
  /** The calls that must each fail once it has stalled, with the operation each is named. */
  calls(store: S): readonly (readonly [operation: string, call: () => Promise<unknown>])[];
}

export const LEASE_CALLS: PortCalls<LeaseStore> = {
  ...LEASE_PORT,
  async prime(store) {
    assert.ok(await store.acquire(request(owner(), 0, 0)));
  },
  calls: (store) => [
    ['list', () => store.list()],
    ['acquire', () => store.acquire(request(owner(), 1, 1))],
  ],
};

export const SEGMENT_CALLS: PortCalls<SegmentStore> = {
  ...SEGMENT_PORT,
  async prime(store) {
    await store.createTag('stall', { step: 10 });
    assert.equal((await store.takeSegment('stall')).last, 10n);
  },
  calls: (store) => [
    ['takeSegment', () => store.takeSegment('stall')],
    ['listTags', () => store.listTags()],
    ['getTag', () => store.getTag('stall')],
    ['createTag', () => store.createTag('other', { step: 1 })],
    ['takeSegment', () => store.takeSegment('stall')],
  ],
};

export const MARK_CALLS: PortCalls<DurableMarkStore> = {
  ...MARK_PORT,
  async prime(store) {
    assert.equal(await store.raise('stall', 10n), 10n);
  },
  calls: (store) => [
    ['read', () => store.read('stall')],
    ['raise', () => store.raise('stall', 11n)],
  ],
};

/** Another backend's URL: a RangeError for every SQL server but that one. */
const FOREIGN_URLS = [
  'postgres://127.0.0.1:1/test',
  'mysql://127.0.0.1:1/x',
  'redis://127.0.0.1:1/0',
  'redis://h',
];

/**
 * The suite for the stores of `calls.port` on `backend`, a SQL server (isSqlServer). The
 * timeouts it sets: 1000 ms to a closed port, 300 ms to a silent server, 400 ms to a stalled
 * one (the query timeout defaults to the connect timeout); each bound is that plus a slack of
 * 500 to 1200 ms for a busy machine (a stalled call fails in about 400 ms on a quiet one, on
 * both servers).
 */
export function sqlServerOutageSuite(
  backend: Backend,
  fx: BackendFixture,
  calls: PortCalls<SqlStore>,
): void {
  const server = SQL_SERVERS[backend.name];
  const opener = calls.opener(backend);
  assert.ok(server !== undefined && opener !== undefined, `${backend.name} ${calls.port}`);
  const { name } = backend;
  const open = (url: string, options: OpenStoreOptions = {}) => opener(url, options);
  /** Asserts a StoreUnavailableError from this backend at `address` during `operation`. */
  const unavailable = (address: string, operation: string) =>
    storeUnavailable({ backend: name, address, operation });
  const title = `${backend.title} ${calls.noun} store`;

  describe(`${title}: a server that is down, silent or stalls`, () => {
    test(`a closed port: StoreUnavailableError naming ${name} and the address, password redacted, within the timeout`, async () => {
      const url = `${name}://idforge:s3cret@127.0.0.1:${await closedPort()}/test`;
      const started = Date.now();
      await assert.rejects(open(url, { connectTimeoutMs: 1000 }), (e) => {
        unavailable(url.replace(':s3cret@', ':***@'), 'connect')(e);
        assert.ok(!(e as Error).message.includes('s3cret'), (e as Error).message);
        return true;
      });
      assert.ok(Date.now() - started < 1000 + 500, `took ${Date.now() - started} ms`);
    });

    test('a server that accepts but never answers fails within connectTimeoutMs', async () => {
      const silent = await silentServer();
      const url = `${name}://idforge@127.0.0.1:${silent.port}/test`;
      const started = Date.now();
      try {
        await assert.rejects(open(url, { connectTimeoutMs: 300 }), unavailable(url, 'connect'));
        const elapsed = Date.now() - started;
        assert.ok(elapsed >= 300 - 50 && elapsed < 300 + 1200, `took ${elapsed} ms`);
      } finally {
        await silent.close();
      }
    });

    test('malformed URLs, namespaces and options are RangeErrors', async () => {
      const base = fx.server!.url;
      for (const bad of [
        `${name}://[::1/x`,
        ...FOREIGN_URLS.filter((u) => !u.startsWith(`${name}:`)),
        `${base}?namespace=Upper`,
        `${base}?namespace=a%22b`,
        ...server.badUrls,
      ]) {
        await assert.rejects(open(bad), RangeError, bad);
      }
      for (const namespace of [
        '',
        'Upper',
        '1st',
        'a-b',
        'Bad-Name',
        'x;drop',
        'x`y',
        ...server.badNamespaces,
      ]) {
        await assert.rejects(open(base, { namespace }), RangeError, namespace);
      }
      await assert.rejects(open(base, { connectTimeoutMs: 0 }), RangeError);
    });

    test('a server that stalls mid-session fails each call within the timeouts', {
      skip: fx.skip,
    }, async (t) => {
      const proxy = await stallableProxy(fx.server!.host, fx.server!.port);
      t.after(() => proxy.close());
      const url = fx.freshUrl('stall', { port: proxy.port });
      const timeoutMs = 400;
      const store = await openRetrying(() => open(url, { connectTimeoutMs: timeoutMs }));
      try {
        await store.migrate();
        await calls.prime(store);
        proxy.stall();
        for (const [operation, call] of calls.calls(store)) {
          const started = Date.now();
          await assert.rejects(call(), unavailable(url, operation));
          const elapsed = Date.now() - started;
          const bound = timeoutMs + 1100;
          assert.ok(elapsed < bound, `${operation} took ${elapsed} ms, bound ${bound} ms`);
        }
      } finally {
        await store.close();
      }
    });
  });
}
