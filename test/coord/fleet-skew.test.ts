// The fleet clock check on every server backend: judged by the store's clock (PostgreSQL,
// Redis) or, on etcd, which has no clock to read, against peers by watching their renewals.
//
// Found by issue 19 §9: the check compared a starting node with its live peers only, so a node
// 10 s ahead that started first locked out every correct node ("9998 ms behind live node").
// Where the store has a clock, the skewed node is the one refused whichever starts first, alone
// too, and a correct node beside a skewed live peer starts and warns, naming it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  ClockSkewError,
  createSnowflakeNode,
  type NodeLogger,
} from '../../packages/idforge/src/coord/index.js';
import type { Clock } from '../../packages/idforge/src/core/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import {
  dropNamespaces,
  freshNamespaceUrl,
  SERVERS,
  type ServerName,
} from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';

const quiet = { info() {}, warn() {}, error() {} };
const ahead = (ms: number): Clock => ({
  now: () => Date.now() + ms,
  nowPrecise: () => Date.now() + ms,
  sleep: blockingSleep,
});

function memoryLogger(): NodeLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

for (const server of ['postgres', 'redis', 'etcd'] as ServerName[]) {
  const skip = await serviceSkip(server, SERVERS[server].host, SERVERS[server].port);
  const url = freshNamespaceUrl(server, 'skew');
  after(() => (skip ? undefined : dropNamespaces(server, [url])));

  describe(`fleet clock check on ${server}`, { skip }, () => {
    const hasClock = server !== 'etcd';
    // Each backend runs the cases that apply to it: a store clock or, on etcd, the peers.
    if (hasClock)
      test('by the store clock: 3 s ahead is refused, 200 ms passes, a correct node beside a skewed peer starts', async () => {
        const storeA = await openLeaseStore(url, { autoMigrate: false });
        await storeA.migrate();
        const storeB = await openLeaseStore(url);
        await assert.rejects(
          createSnowflakeNode({ store: storeB, clock: ahead(3000), ttlMs: 3000, logger: quiet }),
          (e: unknown) =>
            e instanceof ClockSkewError &&
            e.reference === 'store' &&
            e.peer === null &&
            e.skewMs > 2500 &&
            e.skewMs < 3500,
        );
        const a = await createSnowflakeNode({
          store: storeA,
          clock: ahead(3000),
          ttlMs: 3000,
          maxSkewMs: Number.POSITIVE_INFINITY,
          logger: quiet,
        });
        try {
          const warnings: string[] = [];
          const logger = { ...quiet, warn: (m: string) => void warnings.push(m) };
          const b = await createSnowflakeNode({ store: storeB, ttlMs: 3000, logger });
          await b.close();
          assert.equal(warnings.length, 1, warnings.join('\n'));
          assert.match(warnings[0]!, /worker 0 .* \d+ ms ahead of the clock of the/);
          const c = await createSnowflakeNode({
            store: storeB,
            clock: ahead(200),
            ttlMs: 3000,
            logger: quiet,
          });
          await c.close();
        } finally {
          await a.close();
          await storeA.close();
          await storeB.close();
        }
      });

    if (!hasClock)
      test('without a store clock: a node 3 s behind a live peer is refused with the measured skew; 200 ms passes', async () => {
        const storeA = await openLeaseStore(url, { autoMigrate: false });
        await storeA.migrate();
        const storeB = await openLeaseStore(url);
        const a = await createSnowflakeNode({
          store: storeA,
          clock: ahead(3000),
          ttlMs: 3000,
          renewEveryMs: 300,
          maxSkewMs: Number.POSITIVE_INFINITY,
          logger: quiet,
        });
        try {
          await assert.rejects(
            createSnowflakeNode({ store: storeB, maxSkewMs: 1000, ttlMs: 3000, logger: quiet }),
            (e: unknown) =>
              e instanceof ClockSkewError &&
              e.skewMs < -2500 &&
              e.skewMs > -3500 &&
              e.reference === 'peer' &&
              /\d+ ms behind live node worker 0 .* etcd store .* has no clock to read/.test(
                e.message,
              ),
          );
          const c = await createSnowflakeNode({
            store: storeB,
            clock: ahead(2800),
            maxSkewMs: 1000,
            ttlMs: 3000,
            logger: quiet,
          });
          await c.close();
        } finally {
          await a.close();
          await storeA.close();
          await storeB.close();
        }
      });
  });
}

const AHEAD_MS = 10_000;

// Short leases: the check reads the store's clock once, no observation window is needed.
const timing = { ttlMs: 3000, renewEveryMs: 500 };

for (const server of ['postgres', 'redis'] as ServerName[]) {
  const skip = await serviceSkip(server, SERVERS[server].host, SERVERS[server].port);
  const urls = [freshNamespaceUrl(server, 'i19skew'), freshNamespaceUrl(server, 'i19alone')];
  after(() => (skip ? undefined : dropNamespaces(server, urls)));

  describe(`issue 19 §9: the fleet check on ${server} is judged by the store's clock`, {
    skip,
  }, () => {
    test('a node 10 s ahead started first: a correct node starts and warns; a second skewed node is refused', async () => {
      const storeA = await openLeaseStore(urls[0]!, { autoMigrate: false });
      await storeA.migrate();
      const storeB = await openLeaseStore(urls[0]!);
      // The skewed node skips the check (as an old version or maxSkewMs: Infinity would).
      const skewed = await createSnowflakeNode({
        store: storeA,
        clock: ahead(AHEAD_MS),
        maxSkewMs: Number.POSITIVE_INFINITY,
        logger: memoryLogger(),
        ...timing,
      });
      try {
        const logger = memoryLogger();
        const correct = await createSnowflakeNode({ store: storeB, logger, ...timing });
        await correct.close();
        const warning = logger.warnings.find((w) => /worker 0/.test(w)) ?? '';
        assert.match(warning, /instance [0-9a-f-]{36}/, logger.warnings.join('\n'));
        const offset = Number(/(\d+) ms ahead of the clock of the \w+ store/.exec(warning)?.[1]);
        assert.ok(offset > AHEAD_MS - 500 && offset < AHEAD_MS + 500, warning);

        await assert.rejects(
          createSnowflakeNode({
            store: storeB,
            clock: ahead(AHEAD_MS),
            logger: memoryLogger(),
            ...timing,
          }),
          (e: unknown) =>
            e instanceof ClockSkewError &&
            e.code === 'IDF_CLOCK_SKEW' &&
            e.reference === 'store' &&
            e.skewMs > AHEAD_MS - 500 &&
            e.skewMs < AHEAD_MS + 500 &&
            new RegExp(`ahead of the clock of the ${server} store`).test(e.message),
        );
        assert.equal((await storeB.list()).length, 1, 'only the first skewed node holds a lease');
      } finally {
        await skewed.close();
        await storeA.close();
        await storeB.close();
      }
    });

    test('a node 10 s ahead with no live peer is refused', async () => {
      const store = await openLeaseStore(urls[1]!, { autoMigrate: false });
      await store.migrate();
      try {
        await assert.rejects(
          createSnowflakeNode({ store, clock: ahead(AHEAD_MS), logger: memoryLogger(), ...timing }),
          (e: unknown) =>
            e instanceof ClockSkewError &&
            e.reference === 'store' &&
            e.skewMs > AHEAD_MS - 500 &&
            /NTP/.test(e.message),
        );
        assert.equal((await store.list()).length, 0, 'the refused node left no lease');
      } finally {
        await store.close();
      }
    });
  });
}
