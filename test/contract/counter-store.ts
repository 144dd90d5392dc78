// The CounterStore contract (src/sequences/ports.ts), run by ./counter-store.test.ts on every
// backend the registry lists for counters, each store on a fresh location of the backend's
// fixture (test/helpers/backend-fixtures.ts): exact 64-bit values, raiseTo never lowering (also
// against concurrent increments over several connections), overflow as SequenceExhaustedError,
// misuse refused before anything is written; create (where a store has it) refusing an existing
// counter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SequenceExhaustedError,
  TagExistsError,
} from '../../packages/idforge/src/sequences/index.js';
import type { CounterStore } from '../../packages/idforge/src/sequences/ports.js';

export const MAX = (1n << 63n) - 1n;

export interface CounterContractOptions {
  /** Opens a store on `url`, or on a fresh, empty location; closed when the test ends. */
  readonly open: (url?: string) => Promise<CounterStore>;
  /** The URL of a fresh, empty location (the same URL: the same counters). */
  readonly freshUrl: () => string;
  readonly skip?: string | false;
}

/** Every misuse of counter `k` is refused, with a RangeError, before any I/O. */
export async function counterMisuse(s: CounterStore): Promise<void> {
  await assert.rejects(s.incrBy('k', 0), RangeError);
  await assert.rejects(s.incrBy('k', 1.5), RangeError);
  await assert.rejects(s.incrBy('', 1), RangeError);
  await assert.rejects(s.raiseTo('k', -1n), RangeError);
  await assert.rejects(s.raiseTo('k', MAX + 1n), RangeError);
  await assert.rejects(s.raiseTo('k', 5 as unknown as bigint), RangeError);
}

export function counterStoreContract(name: string, options: CounterContractOptions): void {
  const { open } = options;
  describe(`CounterStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    test('incrBy starts from 0 and returns the new value; keys and namespaces are apart', async () => {
      const s = await open();
      const other = await open();
      assert.equal(await s.incrBy('a', 10), 10n);
      assert.equal(await s.incrBy('a', 5), 15n);
      assert.equal(await s.incrBy('b', 1), 1n);
      assert.equal(await other.incrBy('a', 1), 1n, 'another namespace');
    });

    test('values past 2^53 stay exact both ways', async () => {
      const s = await open();
      const big = (1n << 60n) + 1n;
      assert.equal(await s.raiseTo('k', big), big);
      assert.equal(await s.incrBy('k', 3), big + 3n);
      assert.equal(await s.raiseTo('k', MAX - 1n), MAX - 1n);
      assert.equal(await s.incrBy('k', 1), MAX);
    });

    test('raiseTo never lowers: it compares as integers, not as strings or doubles', async () => {
      const s = await open();
      assert.equal(await s.raiseTo('k', 99n), 99n, 'an absent counter is created');
      assert.equal(await s.raiseTo('k', 100n), 100n, 'longer is larger');
      assert.equal(await s.raiseTo('k', 99n), 100n, 'never lowered');
      assert.equal(await s.raiseTo('k', 0n), 100n);
      assert.equal(await s.raiseTo('k', 100n), 100n);
      // 2^60 + 1 and 2^60 + 2 are the same double: a comparison through numbers would fail.
      const base = (1n << 60n) + 1n;
      await s.raiseTo('d', base + 1n);
      assert.equal(await s.raiseTo('d', base), base + 1n);
      assert.equal(await s.raiseTo('d', base + 2n), base + 2n);
    });

    test('concurrent raiseTo and incrBy over several connections: nothing lost, never lower', async () => {
      const url = options.freshUrl();
      const stores = await Promise.all([1, 2, 3, 4].map(() => open(url)));
      const targets = Array.from({ length: 200 }, (_, i) => BigInt((i * 7919) % 100_000));
      const results = await Promise.all(
        stores.flatMap((s, j) => [
          ...targets.map((t) => s.raiseTo('k', t + BigInt(j))),
          ...targets.map(() => s.incrBy('k', 1)),
        ]),
      );
      let max = 0n;
      for (const t of targets) if (t + 3n > max) max = t + 3n;
      const final = await stores[0]!.incrBy('k', 1);
      assert.ok(final > max, `final ${final}`);
      results.forEach((v, i) => {
        if (i % 400 < 200)
          assert.ok(v >= targets[i % 400]!, `raiseTo returned ${v}, below its target`);
      });
      const incs = results.filter((_, i) => i % 400 >= 200);
      assert.equal(new Set(incs).size, incs.length, 'every incrBy returned its own value');
    });

    test('overflow past 2^63 - 1 is SequenceExhaustedError and adds nothing', async () => {
      const s = await open();
      await s.raiseTo('k', MAX - 5n);
      await assert.rejects(s.incrBy('k', 10), (e: unknown) => {
        assert.ok(e instanceof SequenceExhaustedError, String(e));
        assert.equal(e.tag, 'k');
        assert.equal(e.maxId, MAX - 5n);
        return true;
      });
      assert.equal(await s.incrBy('k', 5), MAX);
    });

    // `idforge seq create` opens the store by role and calls it: a store that has it keeps
    // this contract (a table store refuses an existing tag the same way).
    test('create sets a new counter once; an existing one is refused with TagExistsError, unchanged', async (t) => {
      const s = await open();
      if (s.create === undefined) {
        t.skip(`${name} cannot create a counter ahead`);
        return;
      }
      assert.equal(await s.create('k', 41n), 41n);
      assert.equal(await s.incrBy('k', 1), 42n);
      await assert.rejects(s.create('k', 0n), TagExistsError);
      assert.equal(await s.incrBy('k', 1), 43n, 'the existing counter was left as it was');
      await assert.rejects(s.create('j', -1n), RangeError);
    });

    test('misuse is a RangeError and touches nothing', async () => {
      const s = await open();
      await counterMisuse(s);
      assert.equal(await s.incrBy('k', 1), 1n, 'the counter was never written');
    });
  });
}
