// Multi-process tests of worker-ID leases, run on each backend's real server: every node is a
// separate OS process (test/faults/fixtures/node-proc.ts), killed and paused for real.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decompose, getLayout } from '../../src/core/index.js';
import { duplicates, migrated, type NodeProc, startNode } from '../helpers/procs.js';

export interface FleetOptions {
  /** A fresh store URL (own namespace or file) per test. */
  readonly url: () => string;
  /** Lease TTL for these tests, in ms (etcd rounds up to whole seconds, minimum 2). */
  readonly ttlMs: number;
  readonly skip?: string | false;
}

const layout = getLayout('default');
const workerOf = (id: bigint) => decompose(layout, id).fields.node!;
const timeOf = (id: bigint) => decompose(layout, id).unixMs;

async function stopAll(procs: NodeProc[]): Promise<void> {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
}

export function fleetSuite(name: string, options: FleetOptions): void {
  const { ttlMs } = options;
  describe(`fleet on ${name} (real processes)`, { skip: options.skip ?? false }, () => {
    test('8 processes x 250,000 IDs, leases from a range of 8: 0 duplicates', async () => {
      const store = await migrated(options.url());
      const procs = Array.from({ length: 8 }, () =>
        startNode({ store, workers: [0, 7], count: 250_000, batch: 4096, acquireTimeoutMs: 5000 }),
      );
      const codes = await Promise.all(procs.map((p) => p.exited));
      assert.deepEqual(codes, Array(8).fill(0), procs.map((p) => p.fatal).join('; '));
      // A process that finishes releases its worker ID, so a later starter may reuse it: then
      // its IDs must all come after the earlier holder's (the mark), never interleave.
      const byWorker = new Map<number, NodeProc[]>();
      for (const p of procs) byWorker.set(p.workerId!, [...(byWorker.get(p.workerId!) ?? []), p]);
      for (const holders of byWorker.values()) {
        const spans = holders
          .map((p) => [timeOf(p.ids[0]!), timeOf(p.ids.at(-1)!)] as const)
          .sort((x, y) => x[0] - y[0]);
        for (let i = 1; i < spans.length; i++) {
          assert.ok(spans[i]![0] > spans[i - 1]![1], `holders of one worker ID overlap: ${spans}`);
        }
      }
      let total = 0;
      for (const p of procs) {
        assert.equal(p.ids.length, 250_000);
        total += p.ids.length;
        assert.ok(p.ids.every((id) => workerOf(id) === p.workerId));
      }
      assert.equal(total, 2_000_000);
      assert.equal(duplicates(procs.flatMap((p) => p.ids)), 0);
    });

    test('a 9th node finds the range full; a killed node frees its worker ID only after its TTL', async () => {
      const store = await migrated(options.url());
      const holders = Array.from({ length: 8 }, () =>
        startNode({ store, workers: [0, 7], hold: true, ttlMs, acquireTimeoutMs: 5000 }),
      );
      try {
        const workers = await Promise.all(holders.map((h) => h.ready));
        assert.deepEqual(
          [...workers].sort((x, y) => x - y),
          [0, 1, 2, 3, 4, 5, 6, 7],
          'eight concurrent holders, eight distinct worker IDs',
        );
        const ninth = startNode({ store, workers: [0, 7], hold: true, ttlMs, acquireTimeoutMs: 0 });
        assert.equal(await ninth.exited, 3);
        assert.match(
          ninth.fatal ?? '',
          /^IDF_NO_FREE_WORKER no free worker ID in 0\.\.7 on the \w+ store/,
        );
        const victim = holders[3]!;
        victim.child.kill('SIGKILL');
        const killedAt = Date.now();
        await victim.exited;
        const early = startNode({ store, workers: [0, 7], hold: true, ttlMs, acquireTimeoutMs: 0 });
        assert.equal(await early.exited, 3, 'still held right after the kill');
        const late = startNode({
          store,
          workers: [0, 7],
          hold: true,
          ttlMs,
          acquireTimeoutMs: 3 * ttlMs,
        });
        holders.push(late);
        const worker = await late.ready;
        const after = Date.now() - killedAt;
        assert.equal(worker, victim.workerId);
        // The store expires the lease ttl after the victim's last renewal (every ttl/3).
        assert.ok(
          after >= ttlMs - ttlMs / 3 - 250,
          `freed ${after} ms after the kill (ttl ${ttlMs})`,
        );
      } finally {
        await stopAll(holders);
      }
    });

    test('SIGSTOP past the TTL: the paused node issues nothing under its stolen worker ID', async () => {
      const store = await migrated(options.url());
      const a = startNode({ store, workers: [0, 0], ttlMs, batch: 64 });
      const procs = [a];
      try {
        await a.ready;
        await sleep(300);
        a.child.kill('SIGSTOP');
        const b = startNode({
          store,
          workers: [0, 0],
          ttlMs,
          batch: 64,
          acquireTimeoutMs: 3 * ttlMs,
        });
        procs.push(b);
        await b.ready;
        await sleep(500);
        a.child.kill('SIGCONT');
        await sleep(1000 + ttlMs / 2);
        await stopAll(procs);
        assert.ok(a.ids.length > 0 && b.ids.length > 0);
        const firstOfB = b.ids.reduce((m, id) => Math.min(m, timeOf(id)), Infinity);
        const lastOfA = a.ids.reduce((m, id) => Math.max(m, timeOf(id)), 0);
        assert.ok(lastOfA < firstOfB, `A issued at ${lastOfA}, B from ${firstOfB}`);
        assert.equal(duplicates([...a.ids, ...b.ids]), 0);
        assert.ok(
          a.errors.some((e) => /^IDF_(LEASE_LOST|NOT_READY|DUPLICATE_WORKER)/.test(e)),
          `A reported being fenced: ${a.errors.join(' | ')}`,
        );
      } finally {
        await stopAll(procs);
      }
    });
  });
}
