// Found while closing issue 13 (the store-outage regression failed once with an uncaught
// "14 UNAVAILABLE: Connection dropped"). When an etcd stream errors, etcd3 reports it to the
// host's fault policy as `faultHandling.execute(() => { throw error }).catch(() => {})`,
// expecting a promise. Our pass-through host policy called the function synchronously, so
// the throw escaped the stream's error listener as an uncaught exception, crashing a node
// whose keep-alive stream lost its connection. The policy is async now. This drives etcd3's
// own ConnectionPool.markFailed with our options; no server is needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Etcd3, isRecoverableError } from 'etcd3';
import { clientOptions } from '../../packages/stores/src/etcd/connect.js';

test('a failed etcd stream is reported to the host policy without an uncaught throw', async () => {
  const client = new Etcd3(clientOptions(['127.0.0.1:1'], 1000, isRecoverableError));
  try {
    const pool = (client as unknown as { pool: { hosts: unknown[] } }).pool as {
      hosts: unknown[];
      markFailed(host: unknown, error: Error): void;
    };
    assert.equal(pool.hosts.length, 1);
    const dropped = Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 });
    assert.doesNotThrow(() => pool.markFailed(pool.hosts[0], dropped));
    // The policy's rejection is caught by etcd3; let it settle inside this test.
    await new Promise((r) => setImmediate(r));
  } finally {
    client.close();
  }
});

test('the host policy still runs the call and passes its result and its failure through', async () => {
  type Policy = { execute<T>(fn: () => T | Promise<T>): Promise<T> };
  const options = clientOptions(['127.0.0.1:1'], 1000, isRecoverableError);
  const policy = options.faultHandling!.host!('127.0.0.1:1') as unknown as Policy;
  assert.equal(await policy.execute(() => 7), 7);
  assert.equal(await policy.execute(async () => 8), 8);
  await assert.rejects(
    policy.execute(() => {
      throw new Error('boom');
    }),
    /boom/,
  );
});
