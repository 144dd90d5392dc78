// HLC IDs across a cluster: two service nodes listening on real sockets, one clock 300 ms
// ahead and one 300 ms behind. Without the IdForge-HLC header an ID minted later on the slow
// node sorts before the fast node's (the negative control); the client forwards the header,
// so every HLC ID it gets sorts after every one it saw before, whichever node answers.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createClient,
  ServiceRejectedError,
  ServiceResponseError,
} from '../../packages/idforge/src/client/index.js';
import type { Clock } from '../../packages/idforge/src/core/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { formatHlc, hlcOfId, parseHlc } from '../../packages/idforge/src/hlc/index.js';
import { startFakeService } from '../helpers/fake-id-service.js';
import { openTestService, type TestService } from '../helpers/service.js';

function offsetClock(offsetMs: number): Clock {
  return {
    now: () => Math.floor(Date.now() + offsetMs),
    nowPrecise: () => Date.now() + offsetMs,
    sleep: blockingSleep,
  };
}

async function listen(s: TestService): Promise<string> {
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
}

async function hlcId(url: string, header?: string): Promise<{ id: string; hlc: string | null }> {
  const res = await fetch(`${url}/v1/ids/hlc`, {
    headers: header === undefined ? {} : { 'idforge-hlc': header },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { ids: string[] };
  return { id: body.ids[0]!, hlc: res.headers.get('idforge-hlc') };
}

describe('HLC IDs through the service and the client', () => {
  let fast: TestService;
  let slow: TestService;
  let plain: TestService;
  const urls: string[] = [];

  before(async () => {
    // Separate stores, distinct worker IDs: no fleet skew check between the two clocks.
    fast = await openTestService({ hlc: true, workers: '1-2' }, {}, offsetClock(300));
    slow = await openTestService({ hlc: true, workers: '3-4' }, {}, offsetClock(-300));
    plain = await openTestService();
    urls.push(await listen(fast), await listen(slow), await listen(plain));
  });

  after(async () => {
    await Promise.all([fast.close(), slow.close(), plain.close()]);
  });

  test('without the header a later ID from the slow node sorts first (negative control)', async () => {
    const a = await hlcId(urls[0]!);
    const b = await hlcId(urls[1]!);
    assert.ok(BigInt(b.id) < BigInt(a.id), 'the slow clock put the later ID first');
    // The node answers with its clock, the l of the ID it just minted.
    assert.equal(parseHlc(a.hlc!).l, hlcOfId(a.id).l);
  });

  test('the client forwards the header: IDs from either node increase in the order received', async () => {
    const client = createClient({ urls: urls.slice(0, 2), timeoutMs: 5000 });
    const ids: bigint[] = [];
    for (let i = 0; i < 20; i++) ids.push(BigInt(await client.next('hlc')));
    for (let i = 1; i < ids.length; i++) {
      assert.ok(ids[i]! > ids[i - 1]!, `ID ${i} (${ids[i]}) is not above ID ${i - 1}`);
    }
    assert.equal(new Set(ids.map((id) => hlcOfId(id).l)).size > 0, true);
    const last = hlcOfId(ids.at(-1)!);
    assert.ok(parseHlc(client.hlc!).l >= last.l, 'the client holds the latest clock it saw');
    // Other schemes carry the clock too: a UUIDv7 request merges and answers it.
    const before = client.hlc!;
    await client.batch('uuidv7', 2);
    assert.ok(client.hlc! >= before);
    // A timestamp learned elsewhere (a message) is merged and forwarded.
    const ahead = formatHlc({ l: parseHlc(client.hlc!).l + 200, c: 7 });
    client.observeHlc(ahead);
    const next = hlcOfId(await client.next('hlc'));
    assert.ok(next.l > parseHlc(ahead).l || (next.l === parseHlc(ahead).l && next.c > 7));
    assert.throws(() => client.observeHlc('tomorrow'), RangeError);
    client.close();
  });

  test('a malformed header or one too far ahead is refused with 400 and a code; the clock stays', async () => {
    const bad = await fetch(`${urls[1]}/v1/ids/hlc`, { headers: { 'idforge-hlc': 'tomorrow' } });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'IDF_INVALID_ID');
    const future = formatHlc({ l: Date.now() + 60_000, c: 0 });
    const ahead = await fetch(`${urls[1]}/v1/ids/uuidv7`, { headers: { 'idforge-hlc': future } });
    assert.equal(ahead.status, 400);
    const body = (await ahead.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'IDF_HLC_DRIFT');
    assert.match(body.error.message, /ahead of this clock/);
    const after = await hlcId(urls[1]!);
    assert.ok(hlcOfId(after.id).l < parseHlc(future).l, 'the refused timestamp did not move it');
  });

  test('a node without --hlc refuses /v1/ids/hlc and sends no clock', async () => {
    const res = await fetch(`${urls[2]}/v1/ids/hlc`);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /does not serve HLC IDs; start it with --hlc/);
    const ok = await fetch(`${urls[2]}/v1/ids/uuidv7`, { headers: { 'idforge-hlc': 'x' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('idforge-hlc'), null);
    const client = createClient({ urls: [urls[2]!] });
    await assert.rejects(client.next('hlc'), ServiceRejectedError);
    client.close();
  });

  test('the client refuses an answer whose IdForge-HLC header is not a timestamp', async () => {
    const fake = await startFakeService();
    fake.reply = () => ({
      status: 200,
      body: '{"ids":["12345"]}',
      headers: { 'idforge-hlc': '2026-12-01' },
    });
    const client = createClient({ urls: [fake.url] });
    await assert.rejects(client.next('hlc'), (e: unknown) => {
      assert.ok(e instanceof ServiceResponseError);
      assert.match(e.message, /idforge-hlc header "2026-12-01" is not an HLC timestamp/);
      return true;
    });
    assert.equal(client.hlc, null);
    client.close();
    await fake.stop();
  });
});
