// Every backend of the registry as a test sees it: how to get a fresh, empty location on it (a
// SQLite file or a file store's JSON file in a temp directory of the test file's own; a
// PostgreSQL schema, a MySQL table prefix, a Redis or etcd key prefix on the shared servers, see
// namespaces.ts), why its tests skip when its server is absent (they fail instead under
// IDFORGE_REQUIRE_SERVICES=1, services.ts), and the clean-up, registered with the test file's
// `after` so that no test file leaves anything behind.
//
// The contract suites (test/contract/<port>.test.ts) loop over `backendsWith(port)` and run the
// port's contract on each backend through this table: a backend gets every contract test of its
// ports by being registered and having a fixture here, and a registered backend without one
// fails a test (forEachBackend). IDFORGE_CONTRACT_BACKENDS=sqlite,postgres narrows the loops to
// those backends (a run over the code of one backend, such as a mutation run's); unset, every
// backend runs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, test } from 'node:test';
import type { Backend, BackendPort } from '../../packages/stores/src/backend.js';
import { backendsWith } from '../../packages/stores/src/backends.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS, type ServerName } from './namespaces.js';
import { serviceSkip } from './services.js';
import { type TempDir, tempDir } from './temp.js';

/** What the contracts must know of a backend beyond its URL. */
export interface BackendTraits {
  /**
   * Its calls block their thread (better-sqlite3): the contracts' "concurrent" tests race
   * separate processes, since promises in one process would run its calls one at a time.
   */
  readonly blocking: boolean;
  /** It has no clock a client can read (etcd): serverTimeMs() is null. */
  readonly clockless: boolean;
  /** The shortest lease TTL it honours, in ms (etcd: 2000, its minimum). */
  readonly shortTtlMs: number;
}

/** A shared server: where it listens, and its URL (no namespace). */
export interface SharedServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
}

/** Where a backend's fresh locations live, and how a test reaches them. */
export interface BackendFixture {
  readonly name: string;
  readonly traits: BackendTraits;
  /** The shared server (undefined for a backend in a local file): for proxies in front of it. */
  readonly server: SharedServer | undefined;
  /** Why this backend's tests skip (its server is absent), or false. */
  readonly skip: string | false;
  /**
   * The URL of a fresh, empty location, named after `tag` (a few lower-case letters). With
   * `port`, the same kind of location on 127.0.0.1:port (a proxy to the server, or a port where
   * nothing listens); it is cleaned up through the shared server all the same.
   */
  freshUrl(tag?: string, options?: { readonly port?: number }): string;
  /** `store`, closed when the current test ends (tests share the servers' connection limits). */
  keep<T extends { close(): Promise<void> }>(store: T): T;
}

/** The namespace (schema, table prefix, key prefix) a fresh server URL names. */
export function namespaceOf(url: string): string {
  const ns = new URL(url.replace(/^etcd:/, 'http:')).searchParams.get('namespace');
  assert.ok(ns !== null, `no namespace in ${url}`);
  return ns;
}

const SERVER_TRAITS: BackendTraits = { blocking: false, clockless: false, shortTtlMs: 500 };

/** A backend in a local file (the URL of a path), or one whose locations are on a server. */
type Row =
  | {
      readonly kind: 'file';
      readonly traits: BackendTraits;
      readonly url: (path: string) => string;
    }
  | {
      readonly kind: ServerName;
      readonly traits: BackendTraits;
      /** The product, for the skip reason. */
      readonly title: string;
      /** The server's URL, without a namespace. */
      readonly base: string;
    };

/** The table: one row per backend NAME that holds a store or ticket port. */
const TABLE: Record<string, Row> = {
  sqlite: {
    kind: 'file',
    traits: { blocking: true, clockless: false, shortTtlMs: 500 },
    url: (path) => `sqlite:${path}.db`,
  },
  file: {
    kind: 'file',
    traits: { blocking: false, clockless: false, shortTtlMs: 500 },
    url: (path) => `file:${path}.json`,
  },
  postgres: {
    kind: 'postgres',
    traits: SERVER_TRAITS,
    title: 'PostgreSQL',
    base: process.env.IDFORGE_POSTGRES_URL ?? SERVERS.postgres.url,
  },
  mysql: {
    kind: 'mysql',
    traits: SERVER_TRAITS,
    title: 'MariaDB',
    base: process.env.IDFORGE_MYSQL_URL ?? SERVERS.mysql.url,
  },
  redis: { kind: 'redis', traits: SERVER_TRAITS, title: 'Redis', base: SERVERS.redis.url },
  etcd: {
    kind: 'etcd',
    traits: { blocking: false, clockless: true, shortTtlMs: 2000 },
    title: 'etcd',
    base: process.env.IDFORGE_ETCD_URL ?? SERVERS.etcd.url,
  },
};

/** Registers the file's afterEach that closes the stores a test kept. */
function keeper(): BackendFixture['keep'] {
  const kept: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(kept.splice(0).map((s) => s.close()));
  });
  return (store) => {
    kept.push(store);
    return store;
  };
}

function fileFixture(name: string, row: Extract<Row, { kind: 'file' }>): BackendFixture {
  let temp: TempDir | undefined;
  let n = 0;
  after(() => temp?.remove());
  return {
    name,
    traits: row.traits,
    server: undefined,
    skip: false,
    freshUrl(tag = 'store') {
      temp ??= tempDir(`idforge-${name}-`);
      return row.url(join(temp.dir, `${tag}-${n++}`));
    },
    keep: keeper(),
  };
}

/** 127.0.0.1:port in place of the host and port of `base`. */
function atPort(base: string, port: number): string {
  return base.replace(/^([a-z]+:\/\/(?:[^@/]*@)?)[^/?]*/, `$1127.0.0.1:${port}`);
}

async function serverFixture(
  name: string,
  row: Exclude<Row, { kind: 'file' }>,
): Promise<BackendFixture> {
  const { kind, base } = row;
  // The first member, for an etcd URL that lists several (etcd://a:2379,b:2379).
  const at = new URL(base.replace(/^etcd:/, 'http:').replace(/,[^/?]*/, ''));
  const server: SharedServer = {
    host: at.hostname,
    port: Number(at.port || SERVERS[kind].port),
    url: base,
  };
  const skip = await serviceSkip(row.title, server.host, server.port);
  const urls: string[] = [];
  after(async () => {
    if (skip === false && urls.length > 0) await dropLocations(kind, server, urls);
  });
  return {
    name,
    traits: row.traits,
    server,
    skip,
    freshUrl(tag = 'store', options = {}) {
      const url = freshNamespaceUrl(kind, tag, base);
      urls.push(url);
      return options.port === undefined ? url : atPort(url, options.port);
    },
    keep: keeper(),
  };
}

/** Drops the namespaces of `urls`; on etcd, revokes their etcd leases first. */
async function dropLocations(
  kind: ServerName,
  server: SharedServer,
  urls: readonly string[],
): Promise<void> {
  if (kind === 'etcd') {
    const { Etcd3 } = await import('etcd3');
    const client = new Etcd3({ hosts: `http://${server.host}:${server.port}` });
    try {
      for (const url of urls) {
        const prefix = `/${namespaceOf(url)}/`;
        const { kvs } = await client.getAll().prefix(prefix).exec();
        const leases = new Set(kvs.map((kv) => kv.lease).filter((id) => id !== '0'));
        await Promise.all(
          [...leases].map((ID) => client.leaseClient.leaseRevoke({ ID }).catch(() => undefined)),
        );
      }
    } finally {
      client.close();
    }
  }
  await dropNamespaces(kind, urls);
}

/**
 * The fixture of the backend `name`. Call it at the top level of a test file (or of a
 * describe): it registers the clean-up (`after`) and the closing of kept stores (`afterEach`).
 * Throws when the table has no row for `name`, and when the server is absent and
 * IDFORGE_REQUIRE_SERVICES=1.
 */
export async function fixtureOf(name: string): Promise<BackendFixture> {
  const row = TABLE[name];
  assert.ok(row !== undefined, `no fixture for the backend ${name}`);
  return row.kind === 'file' ? fileFixture(name, row) : serverFixture(name, row);
}

/** The backends that serve `port`, each with its fixture or the failure its lack is. */
export function contractPlan(
  port: BackendPort,
): { readonly backend: Backend; readonly missing: string | null }[] {
  return backendsWith(port).map((backend) => ({
    backend,
    missing:
      TABLE[backend.name] === undefined
        ? `backend ${backend.name} serves ${port} but has no contract fixture ` +
          '(add it to test/helpers/backend-fixtures.ts)'
        : null,
  }));
}

/** The backends IDFORGE_CONTRACT_BACKENDS names (comma-separated), or null: all of them. */
const only = process.env.IDFORGE_CONTRACT_BACKENDS?.split(',').map((n) => n.trim()) ?? null;

/**
 * Runs `contract` for every backend the registry lists for `port` (or those of them
 * IDFORGE_CONTRACT_BACKENDS names), with its fixture; a backend without a fixture fails a test
 * of its own. `which` narrows the loop to the backends a suite is about (the SQL servers of
 * sql-server-outage.ts); the others get no fixture. Call at the top level of a test file.
 */
export async function forEachBackend(
  port: BackendPort,
  contract: (backend: Backend, fixture: BackendFixture) => void,
  which: (backend: Backend) => boolean = () => true,
): Promise<void> {
  const plan = contractPlan(port).filter(
    ({ backend }) => which(backend) && (only?.includes(backend.name) ?? true),
  );
  // Every fixture first: a server IDFORGE_REQUIRE_SERVICES=1 requires and cannot reach fails
  // the file as it loads, before any suite has started.
  const fixtures = await Promise.all(
    plan.map(({ backend, missing }) => (missing === null ? fixtureOf(backend.name) : null)),
  );
  plan.forEach(({ backend, missing }, i) => {
    if (missing !== null) test(missing, () => assert.fail(missing));
    else contract(backend, fixtures[i]!);
  });
}
