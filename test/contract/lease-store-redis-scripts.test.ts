// The Redis lease store runs its scripts by SHA1 and sends a script's source only when the
// server answers NOSCRIPT; any other error is the call's, and the script is not run a second
// time by its source (found by the mutation run, issue 34). A client that records the calls.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { RedisLeaseStore } from '../../packages/stores/src/index.js';

function recordingClient(evalshaError: Error) {
  const calls: string[] = [];
  const client = {
    status: 'ready',
    async evalsha() {
      calls.push('evalsha');
      throw evalshaError;
    },
    async eval() {
      calls.push('eval');
      return null;
    },
  };
  return { calls, client };
}

const request = () => ({
  min: 0,
  max: 3,
  ttlMs: 5000,
  owner: { instanceId: randomUUID(), host: 'h', pid: 1, startedAtMs: Date.now() },
  clockMs: Date.now(),
  reserveMarkMs: 0,
});

test('an error other than NOSCRIPT fails the call; the script is not sent again', async () => {
  const { calls, client } = recordingClient(new Error('BUSY Redis is busy running a script'));
  const store = new RedisLeaseStore({ client: client as never });
  await assert.rejects(store.acquire(request()));
  assert.deepEqual(calls, ['evalsha']);
});

test('NOSCRIPT sends the source once', async () => {
  const { calls, client } = recordingClient(new Error('NOSCRIPT No matching script.'));
  const store = new RedisLeaseStore({ client: client as never });
  await store.acquire(request()).catch(() => undefined); // the recorded reply is no lease reply
  assert.deepEqual(calls, ['evalsha', 'eval']);
});

test('a reply of the wrong shape is named as such', async () => {
  const client = {
    status: 'ready',
    async evalsha() {
      return 'OK';
    },
  };
  const store = new RedisLeaseStore({ client: client as never });
  await assert.rejects(store.list(), (e: unknown) =>
    /expected an array reply, got OK/.test(`${e} ${(e as Error).cause ?? ''}`),
  );
});
