// Issue 19 §15: a sequence wait outlasted the client. With an empty buffer and the store down,
// the server waited 3.0 s (the buffer's fetchTimeoutMs) before its 503, and a segment taken
// for a client waited the store's own timeout (5 s), while the client gives up after its
// default timeoutMs of 2,000: the client reported its own timeout instead of the server's
// code. Asserted on a real socket, the sequence store (a SQLite file of its own) held by
// another process's write lock (a store that does not answer): the client with default
// options, and a plain request for numbers, each get the server's 503 IDF_STORE_UNAVAILABLE
// within the client's timeout; and the service's wait stays below the client's default.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { createClient, ServiceUnavailableError } from '../../packages/idforge/src/client/index.js';
import { DEFAULT_TIMEOUT_MS } from '../../packages/idforge/src/client/options.js';
import { openTestService } from '../helpers/service.js';
import { holdSqliteLock } from '../helpers/sqlite-lock.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Runs `call` and returns how long it took less the time this process's event loop was late
 * meanwhile (the sum of every 10 ms probe's delay, not only the longest): the server and the
 * client share this process, and on a busy machine its timers fire late, again and again, for
 * both. What is left is the time the server made the client wait.
 */
async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const started = performance.now();
  try {
    const value = await call();
    const lateMs = (lag.count * lag.mean) / 1e6;
    return { value, ms: performance.now() - started - (lag.count > 0 ? lateMs : 0) };
  } finally {
    lag.disable();
  }
}

describe('issue 19 §15: the server answers a sequence wait within the client timeout', () => {
  test('the service waits less than the client default, with room for the answer', async () => {
    const service = (await import(
      '../../packages/server/src/service/domain/sequences.js'
    )) as Record<string, unknown>;
    const client = (await import('../../packages/idforge/src/client/options.js')) as Record<
      string,
      unknown
    >;
    const wait = service.SEQUENCE_WAIT_MS;
    const timeout = client.DEFAULT_TIMEOUT_MS;
    assert.equal(typeof wait, 'number', 'SEQUENCE_WAIT_MS is exported');
    assert.equal(typeof timeout, 'number', 'DEFAULT_TIMEOUT_MS is exported');
    assert.ok((wait as number) + 500 <= (timeout as number), `${wait} + 500 <= ${timeout}`);
  });

  test('store locked, empty buffer: the default client and a plain GET get 503 IDF_STORE_UNAVAILABLE', async () => {
    const dir = tempDir('idforge-client-timeout-');
    const seqPath = join(dir.dir, 'sequences.db');
    const svc = await openTestService({ sequences: `sqlite:${seqPath}` });
    let lock: { release(): Promise<void> } | null = null;
    try {
      await svc.deps.sequences.create('orders', 100, undefined, undefined);
      await svc.deps.sequences.create('plain', 100, undefined, undefined);
      await svc.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = svc.app.server.address() as { port: number };
      const url = `http://127.0.0.1:${port}`;
      lock = await holdSqliteLock(seqPath);
      // The client's timeout is long enough to hear the server's answer however busy the
      // machine; that the answer comes within the default timeout is asserted on the time.
      const client = createClient({ urls: [url], timeoutMs: 5 * DEFAULT_TIMEOUT_MS });
      try {
        const { value: error, ms } = await timed(() =>
          client
            .sequence('orders')
            .next()
            .then(
              () => assert.fail('a number while the store is locked'),
              (e: unknown) => e,
            ),
        );
        assert.ok(error instanceof ServiceUnavailableError, String(error));
        const [failure] = error.failures;
        assert.deepEqual(
          {
            reason: failure?.reason.slice(0, 40),
            status: failure?.status,
            code: failure?.serverCode,
          },
          { reason: failure?.reason.slice(0, 40), status: 503, code: 'IDF_STORE_UNAVAILABLE' },
          `the client's own failure: ${failure?.reason}`,
        );
        assert.ok(ms < DEFAULT_TIMEOUT_MS, `answered after ${Math.round(ms)} ms`);
      } finally {
        client.close();
      }
      // The buffered route, its buffer never filled: answered before the client would give up.
      const { value: r, ms } = await timed(() =>
        fetch(`${url}/v1/sequences/plain?count=1`, {
          signal: AbortSignal.timeout(5 * DEFAULT_TIMEOUT_MS),
        }),
      );
      assert.equal(r.status, 503);
      assert.equal(
        ((await r.json()) as { error: { code: string } }).error.code,
        'IDF_STORE_UNAVAILABLE',
      );
      assert.ok(ms < DEFAULT_TIMEOUT_MS, `answered after ${Math.round(ms)} ms`);
    } finally {
      await lock?.release();
      await svc.close();
      dir.remove();
    }
  });
});
