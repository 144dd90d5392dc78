// Three real `idforge serve` processes on one shared store, on each lease backend (a file each:
// cluster-<lease>.test.ts; segments on postgres and mysql): 1,000,000 values fetched over HTTP
// from all three at once (Snowflake IDs, sequence numbers and whole segments) carry three
// distinct worker IDs and contain 0 duplicates.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Cluster,
  leases,
  type Pairing,
  pairingSuite,
  prepareStores,
  workerOfNode,
} from '../helpers/cluster.js';
import { Harvest, type Kind, pump } from '../helpers/cluster-load.js';
import { flags } from '../helpers/service.js';

const TAG = 'orders';
const COUNT = 1000;
/** 1,000 requests of 1,000 values: 500 Snowflake, 400 sequence, 100 segment, interleaved. */
const PLAN: readonly Kind[] = Array.from({ length: 1000 }, (_, i) =>
  i % 10 < 5 ? 'snowflake' : i % 10 < 9 ? 'sequence' : 'segment',
);

/**
 * The cluster on one pairing of lease and segment stores (PAIRINGS); each pairing's file
 * (cluster-<lease>.test.ts) runs it, so the pairings run as files at once.
 */
export async function clusterSuite(lease: Pairing['lease']): Promise<void> {
  const { pairing, namespaces, skip } = await pairingSuite(lease);
  describe(`cluster of 3: ${pairing.lease} leases, ${pairing.segments} segments`, { skip }, () => {
    test('1,000,000 values from 3 nodes at once: 3 worker IDs, 0 duplicates', async (t) => {
      const stores = namespaces.stores(pairing, 'cl');
      await prepareStores(stores.lease, stores.segments, TAG, COUNT);
      const cluster = new Cluster(
        flags({
          store: stores.lease,
          sequences: stores.segments,
          // The default TTL: what is checked here does not wait on an expiry, and a short one
          // would let a node starved for a second on a busy machine lose its lease mid-test.
          maxEventLoopDelayMs: 0,
        }),
      );
      try {
        const t1 = Date.now();
        const nodes = await cluster.startMany(3);
        t.diagnostic(`3 nodes ready in ${Date.now() - t1} ms`);
        const workers = await Promise.all(nodes.map(workerOfNode));
        assert.equal(new Set(workers).size, 3, `distinct worker IDs: ${workers}`);
        const listed = await leases(nodes[0]!.url);
        assert.deepEqual(
          listed.map((l) => [l.workerId, l.pid]).sort((x, y) => x[0]! - y[0]!),
          nodes.map((n, i) => [workers[i], n.child.pid]).sort((x, y) => x[0]! - y[0]!),
          'the store lists one lease per node, under the worker ID it logged',
        );

        const harvest = new Harvest();
        let i = 0;
        const next = () => (i < PLAN.length ? PLAN[i++]! : null);
        const started = Date.now();
        await Promise.all(nodes.map((n, k) => pump(n, `node${k}`, harvest, { tag: TAG, next })));
        t.diagnostic(`1,000,000 values over HTTP in ${Date.now() - started} ms`);

        assert.equal(harvest.count('snowflake'), 500_000);
        assert.equal(harvest.count('numbers'), 500_000);
        for (const [k, w] of workers.entries()) {
          const label = `node${k}`;
          assert.ok(harvest.count('snowflake', label) > 0, `${label} served Snowflake IDs`);
          assert.ok(harvest.count('numbers', label) > 0, `${label} served sequence numbers`);
          assert.deepEqual(
            [...harvest.workers(label)],
            [w],
            `${label}'s IDs all carry its worker ID ${w}`,
          );
        }
        assert.equal(harvest.duplicates('snowflake'), 0, 'duplicate Snowflake IDs');
        assert.equal(harvest.duplicates('numbers'), 0, 'duplicate sequence numbers');
      } finally {
        await cluster.killAll();
      }
    });
  });
}
