// The servers the docs' examples talk to (test/docs/readme.test.ts). A doc writes the local
// address a reader has (the project's PostgreSQL and MariaDB, an `idforge serve` on 8080 and
// 8081); the test runs the block with each such address swapped for one of its own: a fresh
// database on the shared server (so the fixed table names of an example, `orders` or
// `shop_doc`, never meet another test's or another run's), or an in-process service listening
// on a free port. Each is set up on first use and removed by close().
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { cli } from './cli.js';
import { SERVERS } from './namespaces.js';
import { openTestService, type TestService } from './service.js';
import { serviceSkip } from './services.js';

/** What a documented address needs: a shared server, or the test's in-process services. */
const ADDRESSES = {
  [SERVERS.postgres.url]: 'postgres',
  [SERVERS.mysql.url]: 'mysql',
  'http://127.0.0.1:8080': 'service',
  'http://127.0.0.1:8081': 'service',
} as const;
type Need = (typeof ADDRESSES)[keyof typeof ADDRESSES];

/** The documented addresses a block's text names. */
export function addressesOf(text: string): string[] {
  return Object.keys(ADDRESSES).filter((a) => text.includes(a));
}

export class DocsServices {
  readonly #db = `idforge_docs_${randomBytes(4).toString('hex')}`;
  readonly #made = new Map<Need, Promise<Record<string, string>>>();
  readonly #services: TestService[] = [];

  /** A skip reason when a server the addresses need is down (and not required), else false. */
  async skip(addresses: readonly string[]): Promise<string | false> {
    for (const need of new Set(addresses.map((a) => ADDRESSES[a as keyof typeof ADDRESSES]))) {
      if (need === 'service') continue;
      const s = SERVERS[need];
      const reason = await serviceSkip(need, s.host, s.port);
      if (reason !== false) return reason;
    }
    return false;
  }

  /** `text` with every documented address replaced by the test's own. */
  async rewrite(text: string): Promise<string> {
    let out = text;
    for (const a of addressesOf(text)) {
      const need = ADDRESSES[a as keyof typeof ADDRESSES];
      if (!this.#made.has(need)) this.#made.set(need, this.#make(need));
      out = out.replaceAll(a, (await this.#made.get(need)!)[a]!);
    }
    return out;
  }

  async #make(need: Need): Promise<Record<string, string>> {
    if (need === 'postgres') {
      await this.#postgres(`CREATE DATABASE ${this.#db}`);
      return { [SERVERS.postgres.url]: SERVERS.postgres.url.replace(/\/test$/, `/${this.#db}`) };
    }
    if (need === 'mysql') {
      await this.#mysql(`CREATE DATABASE ${this.#db}`);
      return { [SERVERS.mysql.url]: SERVERS.mysql.url.replace(/\/test$/, `/${this.#db}`) };
    }
    // Two nodes on one store, as the client's examples have: 8080 and 8081.
    const store = await openTestService();
    this.#services.push(store);
    const other = await openTestService({ store: store.deps.config.store });
    this.#services.push(other);
    const urls: Record<string, string> = {};
    for (const [documented, s] of [
      ['http://127.0.0.1:8080', store],
      ['http://127.0.0.1:8081', other],
    ] as const) {
      await s.app.listen({ port: 0, host: '127.0.0.1' });
      urls[documented] = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
    }
    // The examples use the sequence tag "orders", which an operator creates once.
    const argv = ['seq', 'create', 'orders', '--store', store.deps.config.store];
    const made = await cli(argv);
    if (made.code !== 0) throw new Error(`idforge ${argv.join(' ')}: ${made.stderr}`);
    return urls;
  }

  async #postgres(sql: string): Promise<void> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: SERVERS.postgres.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  async #mysql(sql: string): Promise<void> {
    const { createConnection } = await import('mysql2/promise');
    const conn = await createConnection({ uri: SERVERS.mysql.url });
    try {
      await conn.query(sql);
    } finally {
      await conn.end();
    }
  }

  /** Stops the services and drops the databases this run made. */
  async close(): Promise<void> {
    for (const s of this.#services.splice(0).reverse()) await s.close();
    if (this.#made.has('postgres')) {
      await this.#postgres(`DROP DATABASE IF EXISTS ${this.#db} WITH (FORCE)`);
    }
    if (this.#made.has('mysql')) await this.#mysql(`DROP DATABASE IF EXISTS ${this.#db}`);
  }
}
