// Issue 19 §9: the fleet clock check compared a starting node with its live peers only, so a
// node 10 s ahead that started first locked out every correct node ("9998 ms behind live
// node"). Where the store has a clock (PostgreSQL, Redis), the starting node is now judged
// against the store's clock: the skewed node is the one refused whichever starts first, alone
// too, and a correct node beside a skewed live peer starts and warns, naming it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createSnowflakeNode, type NodeLogger } from '../../packages/idforge/src/coord/index.js';
import { type Clock, ClockSkewError } from '../../packages/idforge/src/core/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import {
  dropNamespaces,
  freshNamespaceUrl,
  SERVERS,
  type ServerName,
} from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';

const AHEAD_MS = 10_000;

/** The real clock moved by `ms`: a host whose clock is off. */
const ahead = (ms: number): Clock => ({
  now: () => Math.floor(Date.now() + ms),
  nowPrecise: () => Date.now() + ms,
  sleep: blockingSleep,
});

function memoryLogger(): NodeLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

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
