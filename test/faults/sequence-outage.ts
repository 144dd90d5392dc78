// A segment store's database stopped for a period while a process keeps asking: numbers keep
// coming from the buffers, then a typed error naming the database (fast, never a hang), then
// recovery by itself after the restart; 0 duplicates overall. The server is the project's own
// instance (scripts/services/), never the shared one, with a namespace of its own per run,
// dropped after. The negative control (on one backend, `control: true`) takes the durability
// away: the server comes back empty, and the same drawing reissues numbers.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  openSegmentSequence,
  StoreUnavailableError,
} from '../../packages/idforge/src/sequences/index.js';
import { openSegmentStore } from '../../packages/stores/src/open.js';
import { duplicates } from '../helpers/procs.js';
import { ownServerSuite } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import type { OutageOptions } from './outage.js';

export function sequenceOutageSuite(options: OutageOptions): void {
  const { server, url, backend } = options;
  describe(`${backend} segment store outage (own server)`, { skip: options.skip ?? false }, () => {
    ownServerSuite(server, backend, [url]);

    test('buffers serve through the outage, then a fast typed error, then recovery', async () => {
      const store = await openSegmentStore(url, { connectTimeoutMs: 2000 });
      await store.migrate();
      const tag = `outage_${randomBytes(3).toString('hex')}`;
      await store.createTag(tag, { step: 5000 });
      const seq = await openSegmentSequence(store, tag, {
        dynamicStep: false,
        fetchTimeoutMs: 1500,
      });
      const ids: bigint[] = [];
      const take = async (n: number) => {
        for (let i = 0; i < n; i++) ids.push(seq.tryNext() ?? (await seq.next()));
      };
      await take(3000);
      await server.stop(true);
      const downAt = Date.now();
      const before = ids.length;
      let errorAfterMs = 0;
      const error = await waitFor(
        async () => {
          const t0 = Date.now();
          try {
            await take(100);
            return undefined;
          } catch (e) {
            errorAfterMs = Date.now() - t0;
            return e ?? new Error(`take threw ${e}`);
          }
        },
        'a request to fail once the buffers are drained',
        { everyMs: 1 },
      );
      const fromBuffers = ids.length - before;
      assert.ok(error instanceof StoreUnavailableError, String(error));
      assert.equal(error.backend, backend);
      assert.match(error.message, options.address);
      assert.ok(fromBuffers > 0, 'numbers served from the buffers while the database was down');
      assert.ok(errorAfterMs <= 3000, `the failing request took ${errorAfterMs} ms`);
      // Still failing fast while down.
      const t1 = Date.now();
      await assert.rejects(seq.next(), StoreUnavailableError);
      assert.ok(Date.now() - t1 <= 3000);
      await server.start();
      const upAt = Date.now();
      let lastError: unknown;
      await waitFor(
        async () => {
          try {
            await take(100);
            return true;
          } catch (e) {
            // Only the store being unavailable is expected here; anything else fails the test.
            if (!(e instanceof StoreUnavailableError)) throw e;
            lastError = e;
            return false;
          }
        },
        () => `serving again after the restart; last error: ${lastError}`,
        { ms: 30_000, everyMs: 100 },
      );
      await take(10_000);
      assert.equal(duplicates(ids), 0);
      for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'increasing');
      console.log(
        `# ${backend} outage: ${fromBuffers} numbers served from buffers after the stop ` +
          `(${Date.now() - downAt} ms in all), error after ${errorAfterMs} ms, ` +
          `recovered ${Date.now() - upAt} ms after the restart; ${ids.length} numbers, 0 duplicates`,
      );
      seq.close();
      await store.close();
    });

    if (!options.control) return;

    test('negative control: a server that comes back empty makes the same drawing reissue numbers', async (t) => {
      const store = await openSegmentStore(url, { connectTimeoutMs: 2000 });
      const tag = `forget_${randomBytes(3).toString('hex')}`;
      let seq: Awaited<ReturnType<typeof openSegmentSequence>> | undefined;
      try {
        await store.migrate();
        await store.createTag(tag, { step: 5000 });
        seq = await openSegmentSequence(store, tag, { dynamicStep: false, fetchTimeoutMs: 1500 });
        const s = seq;
        const ids: bigint[] = [];
        for (let i = 0; i < 3000; i++) ids.push(s.tryNext() ?? (await s.next()));
        // The durability taken away: killed, its data deleted, started empty; the operator
        // re-creates the table and the tag as they were created first.
        await server.stop(true, true);
        await server.start();
        const again = await openSegmentStore(url, { connectTimeoutMs: 5000 });
        try {
          await again.migrate();
          await again.createTag(tag, { step: 5000 });
        } finally {
          await again.close();
        }
        // At most 7,000 numbers are left in the two buffers; the next block starts at 1 again.
        let failures = 0;
        while (ids.length < 15_000) {
          try {
            ids.push(s.tryNext() ?? (await s.next()));
          } catch (e) {
            if (!(e instanceof StoreUnavailableError) || ++failures > 100) throw e;
            await sleep(50);
          }
        }
        const dups = duplicates(ids);
        t.diagnostic(`control: ${dups} of ${ids.length} numbers reissued`);
        assert.notEqual(dups, 0, 'the duplicate check fails when the store forgets');
      } finally {
        seq?.close();
        await store.close();
      }
    });
  });
}
