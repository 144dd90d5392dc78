// The fleet clock check on every server backend: through the store's clock (PostgreSQL,
// Redis) or, on etcd, which has no clock to read, by watching a peer's next renewal.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createSnowflakeNode } from '../../src/coord/index.js';
import { type Clock, ClockSkewError } from '../../src/core/index.js';
import { blockingSleep } from '../../src/core/internal.js';
import { openLeaseStore } from '../../src/stores/open.js';
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
    test('a node 3 s behind a live peer is refused with the measured skew; 200 ms passes', async () => {
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
            /\d+ ms behind live node worker 0/.test(e.message),
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
