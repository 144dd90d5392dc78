// The fleet clock check on every server backend: judged by the store's clock (PostgreSQL,
// Redis) or, on etcd, which has no clock to read, against peers by watching their renewals.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createSnowflakeNode } from '../../packages/idforge/src/coord/index.js';
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

const quiet = { info() {}, warn() {}, error() {} };
const ahead = (ms: number): Clock => ({
  now: () => Date.now() + ms,
  nowPrecise: () => Date.now() + ms,
  sleep: blockingSleep,
});

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
