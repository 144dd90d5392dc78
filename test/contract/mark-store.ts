// The DurableMarkStore contract (src/sequences/ports.ts), run on every backend the registry
// lists for marks by ./mark-store.test.ts, each on a fresh location of its fixture
// (test/helpers/backend-fixtures.ts): the same URL opened again is the same marks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { DurableMarkStore } from '../../packages/idforge/src/sequences/ports.js';
import { StoreNotMigratedError } from '../../packages/stores/src/index.js';
import { openMarkStore } from '../../packages/stores/src/open.js';
import { tsEntry } from '../helpers/bundle.js';
import { raceInProcesses } from './fixtures/race.js';

const MAX = (1n << 63n) - 1n;
const fixture = fileURLToPath(new URL('../faults/fixtures/mark-raise-proc.ts', import.meta.url));

/**
 * Opens the mark store of a URL through the registry's opener for marks (sqlite:,
 * postgres://, ...), migrated unless `migrate` is false.
 */
export async function openMarks(url: string, migrate = true): Promise<DurableMarkStore> {
  const store = await openMarkStore(url, { autoMigrate: false });
  if (migrate) await store.migrate();
  return store;
}

export interface MarkContractOptions {
  /** The URL of a fresh, empty store location (the same URL: the same marks). */
  readonly freshUrl: () => string;
  readonly skip?: string | false;
  /**
   * The store's calls block their thread (SQLite): the "concurrent" test races separate
   * processes (./fixtures/race.ts), since promises in one process would raise one at a time.
   */
  readonly processes?: boolean;
}

async function withStores(
  urls: readonly string[],
  fn: (...stores: DurableMarkStore[]) => Promise<void>,
): Promise<void> {
  const stores = await Promise.all(urls.map((u) => openMarks(u)));
  try {
    await fn(...stores);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
}

function killedAfterRaise(url: string, key: string, value: bigint): Promise<string> {
  const child = spawn(
    process.execPath,
    [...tsEntry(fixture), JSON.stringify({ url, key, value: String(value) })],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve(`${out.trim()} ${signal ?? code}`));
  });
}

export function markStoreContract(name: string, options: MarkContractOptions): void {
  const fresh = options.freshUrl;
  describe(`DurableMarkStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    test('migrate is idempotent; an unknown key has no mark', () =>
      withStores([fresh()], async (s) => {
        await s!.migrate();
        await s!.migrate();
        assert.equal(await s!.read('orders'), null);
      }));

    test('raise keeps the larger value and returns it; keys are independent', () =>
      withStores([fresh()], async (s) => {
        assert.equal(await s!.raise('a', 100n), 100n);
        assert.equal(await s!.raise('a', 50n), 100n, 'never lowered');
        assert.equal(await s!.raise('a', 100n), 100n);
        assert.equal(await s!.raise('a', 101n), 101n);
        assert.equal(await s!.read('a'), 101n);
        assert.equal(await s!.raise('b', 0n), 0n);
        assert.equal(await s!.read('b'), 0n);
        assert.equal(await s!.read('c'), null);
      }));

    test('64-bit marks are exact (2^53 + 1, 2^63 - 1)', () =>
      withStores([fresh()], async (s) => {
        const odd = (1n << 53n) + 1n;
        assert.equal(await s!.raise('k', odd), odd);
        assert.equal(await s!.read('k'), odd);
        assert.equal(await s!.raise('k', odd + 1n), odd + 1n, 'differs from the last by 1');
        assert.equal(await s!.raise('k', MAX), MAX);
        assert.equal(await s!.read('k'), MAX);
      }));

    test('concurrent raises from several connections end at the maximum', () => {
      const url = fresh();
      return withStores([url, url, url], async (...stores) => {
        const values = stores.map((_, j) =>
          Array.from({ length: 40 }, (_, i) => BigInt(((i * 7919 + j * 104_729) % 100_003) + 1)),
        );
        let got: bigint[][];
        if (options.processes) {
          // Three processes at once: in this one, SQLite would run the raises one by one.
          const per = values.map((vs) =>
            vs.map((v) => ({ kind: 'mark', key: 'k', value: String(v) }) as const),
          );
          got = (await raceInProcesses<string>(url, per)).map((ms) => ms.map(BigInt));
        } else {
          got = await Promise.all(
            stores.map((s, j) => Promise.all(values[j]!.map((v) => s.raise('k', v)))),
          );
        }
        values.forEach((vs, j) => {
          vs.forEach((v, i) => {
            const m = got[j]![i]!;
            assert.ok(m >= v, `raise(${v}) returned ${m}`);
          });
        });
        let max = 0n;
        for (const v of values.flat()) if (v > max) max = v;
        for (const s of stores) assert.equal(await s.read('k'), max);
      });
    });

    test('raise resolves only once committed: a process killed right after keeps it', async () => {
      const url = fresh();
      await withStores([url], async (s) => {
        await s!.raise('k', 5n);
      });
      const value = (1n << 62n) + 7n;
      assert.equal(await killedAfterRaise(url, 'k', value), `R ${value} SIGKILL`);
      await withStores([url], async (s) => {
        assert.equal(await s!.read('k'), value);
      });
    });

    test('before migrate, read and raise are StoreNotMigratedError', async () => {
      const s = await openMarks(fresh(), false);
      try {
        // Each call is made only when the previous one has been awaited: two promises made
        // first would leave the second's rejection unobserved while the first is pending.
        for (const [call, op] of [
          [() => s.read('k'), 'read'],
          [() => s.raise('k', 1n), 'raise'],
        ] as const) {
          await assert.rejects(call, (e: unknown) => {
            assert.ok(e instanceof StoreNotMigratedError, String(e));
            assert.equal(e.backend, name);
            assert.equal(e.operation, op);
            assert.match(e.message, /idforge migrate --store/);
            return true;
          });
        }
      } finally {
        await s.close();
      }
    });

    test('misuse is a RangeError', () =>
      withStores([fresh()], async (s) => {
        await assert.rejects(s!.raise('k', -1n), RangeError);
        await assert.rejects(s!.raise('k', MAX + 1n), RangeError);
        await assert.rejects(s!.raise('k', 1 as unknown as bigint), RangeError);
        await assert.rejects(s!.raise('', 1n), RangeError);
        await assert.rejects(s!.read(''), RangeError);
        assert.equal(await s!.read('k'), null);
      }));
  });
}
