// The coordination store down, for real: the project's own server instance is stopped and
// started again (scripts/services/), never the shared one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openLeaseStore } from '../../src/adapters/open.js';
import { createSnowflakeNode } from '../../src/coord/index.js';
import { IdforgeError, StoreUnavailableError } from '../../src/core/index.js';
import { cli } from '../helpers/cli.js';
import { duplicates } from '../helpers/procs.js';
import type { OwnServer } from '../helpers/server.js';

export interface OutageOptions {
  readonly server: OwnServer;
  readonly url: string;
  readonly backend: string;
  /** What the address in errors must contain (host:port). */
  readonly address: RegExp;
  readonly skip?: string | false;
}

const quiet = { info() {}, warn() {}, error() {} };

export function outageSuite(options: OutageOptions): void {
  const { server, url, backend } = options;
  describe(`${backend} store outages (own server)`, { skip: options.skip ?? false }, () => {
    before(() => server.start());
    after(() => server.stop());

    test('down at start: a typed error naming the backend and address, in the API and CLI', async () => {
      await server.stop();
      try {
        const started = Date.now();
        await assert.rejects(
          openLeaseStore(url, { connectTimeoutMs: 2000 }).then((store) =>
            createSnowflakeNode({ store, logger: quiet }),
          ),
          (e: unknown) =>
            e instanceof StoreUnavailableError &&
            e.backend === backend &&
            options.address.test(e.address) &&
            options.address.test(e.message),
        );
        assert.ok(Date.now() - started < 10_000, 'failed within the connect timeout');
        const r = await cli(['gen', 'snowflake', '--store', url]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, new RegExp(`${backend} store at .*\\[IDF_STORE_UNAVAILABLE\\]`));
        assert.match(r.stderr, options.address);
      } finally {
        await server.start();
      }
    });

    test('down while running: issues until the lease deadline, stops, recovers when back', async () => {
      const store = await openLeaseStore(url);
      await store.migrate();
      const ttlMs = 3000;
      const node = await createSnowflakeNode({
        store,
        ttlMs,
        renewEveryMs: 500,
        retryMs: 200,
        logger: quiet,
        maxSkewMs: Number.POSITIVE_INFINITY,
      });
      const ids: bigint[] = [];
      const codes = new Set<string>();
      let lastOk = 0;
      let running = true;
      const loop = (async () => {
        while (running) {
          try {
            ids.push(...node.batch(50));
            lastOk = Date.now();
          } catch (e) {
            assert.ok(e instanceof IdforgeError, String(e));
            codes.add(e.code);
          }
          await sleep(2);
        }
      })();
      await sleep(500);
      const downAt = Date.now();
      await server.stop(true);
      const stoppedAfter = await waitFor(() => codes.size > 0, 10_000);
      const issuedFor = lastOk - downAt;
      // The deadline: the last renewal sent (at most renewEveryMs before the crash) + ttl - guard.
      assert.ok(issuedFor >= 1500 && issuedFor <= ttlMs, `issued for ${issuedFor} ms while down`);
      assert.ok(codes.has('IDF_LEASE_LOST'), [...codes].join());
      assert.ok(stoppedAfter, 'stopped issuing');
      const before = ids.length;
      await server.start();
      await node.whenReady(20_000);
      await sleep(300);
      running = false;
      await loop;
      assert.ok(ids.length > before, 'issued again after the store came back');
      assert.equal(duplicates(ids), 0);
      assert.ok(node.metrics.renewalFailures > 0);
      await node.close();
      await store.close();
    });
  });
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}
