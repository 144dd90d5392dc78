// Multi-process tests of worker-ID leases, run on each backend's real server: every node is a
// separate OS process (test/faults/fixtures/node-proc.ts), killed and paused for real.
// Negative controls (on one backend, `controls: true`) run the same scenarios with the lease
// taken away and show that the checks then fail: 8 processes on one fixed worker ID (with
// clocks that make them issue in the same ticks for certain) repeat IDs, and a paused
// generator that no lease fences issues again after another took its worker ID.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { openLeaseStore } from '../../packages/stores/src/index.js';
import { duplicates, migrated, type NodeProc, startNode } from '../helpers/procs.js';
import { waitFor } from '../helpers/wait.js';

export interface FleetOptions {
  /** A fresh store URL (own namespace or file) per test. */
  readonly url: () => string;
  /** Lease TTL for these tests, in ms (etcd rounds up to whole seconds, minimum 2). */
  readonly ttlMs: number;
  readonly skip?: string | false;
  /** Also run the negative controls (one backend is enough: they take the lease away). */
  readonly controls?: boolean;
}

const FENCED = /^IDF_(LEASE_LOST|NOT_READY|DUPLICATE_WORKER)/;

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
        // Still held right after the kill: read from the store at once. (A ninth process
        // started here needs a second or two to load and check the fleet's clocks: on a
        // loaded machine the lease could expire first, and that process would then hold the
        // ID for ever.)
        const leases = await openLeaseStore(store, { autoMigrate: false });
        try {
          const held = (await leases.list()).find((l) => l.workerId === victim.workerId);
          assert.ok(held !== undefined, 'the killed node still holds its worker ID');
          assert.ok(held.expiresAtMs > killedAt, 'its lease runs on past the kill');
        } finally {
          await leases.close();
        }
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

    test('SIGSTOP past the TTL: the paused node issues nothing under its stolen worker ID', async (t) => {
      const store = await migrated(options.url());
      const a = startNode({ store, workers: [0, 0], ttlMs, batch: 64 });
      const procs = [a];
      try {
        await a.ready;
        await waitFor(() => a.ids.length > 0, 'A to issue');
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
        await waitFor(() => b.ids.length > 0, 'B to issue');
        const issuedBefore = a.ids.length;
        a.child.kill('SIGCONT');
        // A prints its first refusal once it runs again: anything it issued after the thaw
        // (under B's worker ID) would have been printed before it.
        await waitFor(() => a.errors.some((e) => FENCED.test(e)), 'A to report being fenced');
        await stopAll(procs);
        t.diagnostic(`A issued ${a.ids.length - issuedBefore} IDs after the thaw`);
        assert.ok(a.ids.length > 0 && b.ids.length > 0);
        const firstOfB = b.ids.reduce((m, id) => Math.min(m, timeOf(id)), Infinity);
        const lastOfA = a.ids.reduce((m, id) => Math.max(m, timeOf(id)), 0);
        assert.ok(lastOfA < firstOfB, `A issued at ${lastOfA}, B from ${firstOfB}`);
        assert.equal(duplicates([...a.ids, ...b.ids]), 0);
        assert.ok(
          a.errors.some((e) => FENCED.test(e)),
          `A reported being fenced: ${a.errors.join(' | ')}`,
        );
      } finally {
        await stopAll(procs);
      }
    });

    if (!options.controls) return;

    test('negative control: 8 processes on one fixed worker ID without a lease repeat IDs', async (t) => {
      // The same fleet, each process a bare generator on worker ID 0. Their clocks start at
      // one instant and move only when a tick's sequence is used up, so all 8 issue in the
      // same ticks, as processes that overlap in time on a real clock do.
      const manualClockAt = Date.now();
      const procs = Array.from({ length: 8 }, () =>
        startNode({ mode: 'bare', workers: [0, 0], count: 50_000, batch: 4096, manualClockAt }),
      );
      const codes = await Promise.all(procs.map((p) => p.exited));
      assert.deepEqual(codes, Array(8).fill(0));
      const all = procs.flatMap((p) => p.ids);
      assert.equal(all.length, 400_000);
      const dups = duplicates(all);
      t.diagnostic(`control: ${dups} duplicates among ${all.length} IDs`);
      assert.notEqual(dups, 0, 'the duplicate check fails without leases');
      assert.equal(dups, 7 * 50_000, 'every process issued the same 50,000 IDs');
    });

    test('negative control: a paused generator without a lease issues under the taken worker ID', async (t) => {
      // The SIGSTOP scenario with A unfenced: a bare generator on worker ID 0, which B then
      // leases from the store (A holds nothing). After SIGCONT A issues again, and its IDs
      // come after B's first: what the SIGSTOP test asserts never happens.
      const store = await migrated(options.url());
      const a = startNode({ mode: 'bare', workers: [0, 0], batch: 64, pauseMs: 1 });
      const procs = [a];
      try {
        await a.ready;
        await waitFor(() => a.ids.length > 0, 'A to issue');
        a.child.kill('SIGSTOP');
        const b = startNode({ store, workers: [0, 0], ttlMs, batch: 64, acquireTimeoutMs: 0 });
        procs.push(b);
        assert.equal(await b.ready, 0, 'B leased worker ID 0');
        await waitFor(() => b.ids.length > 0, 'B to issue');
        const firstOfB = b.ids.reduce((m, id) => Math.min(m, timeOf(id)), Infinity);
        a.child.kill('SIGCONT');
        await waitFor(
          () => a.ids.length > 0 && timeOf(a.ids.at(-1)!) > firstOfB,
          'A to issue after B started',
        );
        await stopAll(procs);
        const lastOfA = a.ids.reduce((m, id) => Math.max(m, timeOf(id)), 0);
        t.diagnostic(
          `control: A issued until ${lastOfA - firstOfB} ms after B's first ID, ` +
            `${duplicates([...a.ids, ...b.ids])} duplicates`,
        );
        assert.ok(!(lastOfA < firstOfB), 'the SIGSTOP check fails without the lease');
        assert.equal(a.errors.length, 0, 'nothing fenced A: only the lease would have');
      } finally {
        await stopAll(procs);
      }
    });
  });
}
