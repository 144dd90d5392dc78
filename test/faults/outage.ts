// The coordination store down, for real: the project's own server instance is stopped and
// started again (scripts/services/), never the shared one. Each run uses a namespace of its
// own, dropped at the end, so no run sees another's leases or marks. The negative control (on
// one backend, `control: true`) issues through the same outage with the lease check off: it
// issues past the lease deadline and, once the store is back, alongside the next holder of
// its worker ID.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createSnowflakeNode,
  StoreUnavailableError,
} from '../../packages/idforge/src/coord/index.js';
import {
  decompose,
  getLayout,
  IdforgeError,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { cli } from '../helpers/cli.js';
import type { ServerName } from '../helpers/namespaces.js';
import { duplicates } from '../helpers/procs.js';
import { type OwnServer, ownServerSuite } from '../helpers/server.js';
import { early, waitFor } from '../helpers/wait.js';

export interface OutageOptions {
  readonly server: OwnServer;
  /** On the own server, with a namespace of this run (freshNamespaceUrl), dropped after. */
  readonly url: string;
  readonly backend: ServerName;
  /** What the address in errors must contain (host:port). */
  readonly address: RegExp;
  readonly skip?: string | false;
  /** Also run the negative control. */
  readonly control?: boolean;
}

const quiet = { info() {}, warn() {}, error() {} };

export function outageSuite(options: OutageOptions): void {
  const { server, url, backend } = options;
  describe(`${backend} store outages (own server)`, { skip: options.skip ?? false }, () => {
    ownServerSuite(server, backend, [url]);

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
      const loop = early(async () => {
        while (running) {
          try {
            ids.push(...node.batch(50));
            lastOk = Date.now();
          } catch (e) {
            if (!(e instanceof IdforgeError)) throw e;
            codes.add(e.code);
          }
          await sleep(2);
        }
      });
      // Whatever fails below, the loop stops and the node and store close: a failed step must
      // fail the test, not leave the file running forever (it once hung a CI run).
      try {
        await waitFor(() => ids.length >= 1000, 'the node to issue');
        const downAt = Date.now();
        await server.stop(true);
        await waitFor(() => codes.size > 0, 'the node to stop issuing', 10_000);
        const issuedFor = lastOk - downAt;
        // The deadline: the last renewal sent (at most renewEveryMs before the crash) + ttl - guard.
        assert.ok(issuedFor >= 1500 && issuedFor <= ttlMs, `issued for ${issuedFor} ms while down`);
        assert.ok(codes.has('IDF_LEASE_LOST'), [...codes].join());
        const before = ids.length;
        await server.start();
        await node.whenReady(20_000);
        await waitFor(() => ids.length >= before + 500, 'issuing again');
        running = false;
        await loop;
        assert.ok(ids.length > before, 'issued again after the store came back');
        assert.equal(duplicates(ids), 0);
        assert.ok(node.metrics.renewalFailures > 0);
      } finally {
        running = false;
        await loop.catch(() => undefined);
        await node.close();
        await store.close();
      }
    });

    if (!options.control) return;

    test('negative control: with the lease check off, it issues past the deadline and beside the next holder', async (t) => {
      const store = await openLeaseStore(url);
      await store.migrate();
      const ttlMs = 3000;
      const now = Date.now();
      const lease = await store.acquire({
        min: 0,
        max: 0,
        ttlMs,
        owner: { instanceId: randomUUID(), host: hostname(), pid: process.pid, startedAtMs: now },
        clockMs: now,
        reserveMarkMs: now,
      });
      assert.ok(lease, 'worker ID 0 leased');
      // The guard off: a generator on the leased worker ID that never looks at the lease.
      const gen = new SnowflakeGenerator({ node: lease.workerId, warnYears: 0 });
      const unguarded: bigint[] = [];
      let lastOk = 0;
      let running = true;
      const loop = early(async () => {
        while (running) {
          unguarded.push(...gen.batch(50));
          lastOk = Date.now();
          await sleep(2);
        }
      });
      let node: Awaited<ReturnType<typeof createSnowflakeNode>> | undefined;
      let next: Awaited<ReturnType<typeof openLeaseStore>> | undefined;
      try {
        await server.stop(true);
        const downAt = Date.now();
        await waitFor(() => lastOk - downAt > ttlMs, 'issuing past the lease deadline');
        await server.start();
        // The lease expired during the outage: the next node (a client of its own) takes
        // worker ID 0.
        next = await openLeaseStore(url, { connectTimeoutMs: 5000 });
        node = await createSnowflakeNode({
          store: next,
          workerIds: [0, 0],
          ttlMs,
          acquireTimeoutMs: 20_000,
          logger: quiet,
          maxSkewMs: Number.POSITIVE_INFINITY,
        });
        assert.equal(node.workerId, 0);
        const theirs = await node.batchAsync(50);
        const firstOfNext = unixMs(theirs[0]!);
        await waitFor(
          () => unixMs(unguarded.at(-1)!) > firstOfNext,
          'issuing beside the next holder',
        );
        const issuedFor = lastOk - downAt;
        running = false;
        await loop;
        for (let i = 0; i < 20; i++) theirs.push(...(await node.batchAsync(50)));
        const dups = duplicates([...unguarded, ...theirs]);
        t.diagnostic(
          `control: issued for ${issuedFor} ms after the crash (deadline ${ttlMs} ms), ` +
            `${dups} duplicates with the next holder of worker ID 0`,
        );
        assert.ok(!(issuedFor <= ttlMs), 'the deadline check fails without the lease check');
      } finally {
        running = false;
        await loop;
        await node?.close();
        await next?.close();
        await store.close();
      }
    });
  });
}

const unixMs = (id: bigint) => decompose(getLayout('default'), id).unixMs;
