// Shard genes through the service and the client: a node serving the gene-8 layout mints
// Snowflake IDs whose gene comes from another ID (?geneFrom=, the order's user) or is given
// (?gene=), so each routes to its parent's shard; without either, each ID draws its own.
// One in-process service listening on a real socket.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createClient, ServiceRejectedError } from '../../packages/idforge/src/client/index.js';
import { shardOf } from '../../packages/idforge/src/snowflake/index.js';
import { openTestService, type TestService } from '../helpers/service.js';

const USER = 253624871865548943n; // low 8 bits: 143
const SHARDS = [2, 4, 8, 16, 32, 64, 128, 256];

interface Body {
  readonly ids: string[];
  readonly error: { readonly code: string; readonly message: string };
}

async function get(url: string, query: string): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${url}/v1/ids/snowflake?${query}`);
  return { status: res.status, body: (await res.json()) as Body };
}

describe('shard genes through the service and the client', () => {
  let s: TestService;
  let url: string;

  before(async () => {
    s = await openTestService({ layouts: ['gene-8'] });
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  });
  after(() => s.close());

  test('?geneFrom= routes every ID of the answer to the parent ID’s shard', async () => {
    const r = await get(url, `layout=gene-8&count=100&geneFrom=${USER}`);
    assert.equal(r.status, 200);
    const ids = (r.body.ids as string[]).map(BigInt);
    assert.equal(new Set(ids).size, 100);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'increasing');
    for (const id of ids) {
      for (const n of SHARDS) assert.equal(shardOf(id, n), shardOf(USER, n), `${id} on ${n}`);
    }
  });

  test('?gene= gives the gene itself; without a gene each ID draws its own', async () => {
    const given = await get(url, 'layout=gene-8&count=20&gene=7');
    assert.deepEqual(
      new Set((given.body.ids as string[]).map((id) => shardOf(id, 256))),
      new Set([7]),
    );
    const random = await get(url, 'layout=gene-8&count=200');
    const genes = new Set((random.body.ids as string[]).map((id) => shardOf(id, 256)));
    // 200 uniform draws from 256 genes: fewer than 100 distinct has probability far below 1e-30.
    assert.ok(genes.size > 100, `${genes.size} distinct genes in 200 IDs`);
  });

  test('refused with the cause: no gene field, both, another scheme, out of range, not an ID', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [`count=1&gene=3`, 'IDF_BAD_REQUEST', /layout "default" has no gene field/],
      [`layout=gene-8&gene=3&geneFrom=5`, 'IDF_BAD_REQUEST', /gene or geneFrom, not both/],
      [`layout=gene-8&gene=256`, 'IDF_BAD_REQUEST', /\[0, 255\]/],
      [`layout=gene-8&geneFrom=abc`, 'IDF_BAD_REQUEST', /geneFrom/],
      [`layout=gene-8&geneFrom=99999999999999999999`, 'IDF_INVALID_ID', /geneFrom/],
    ];
    for (const [query, code, message] of cases) {
      const r = await get(url, query);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.error.code, code, query);
      assert.match(r.body.error.message, message, query);
    }
    const other = await fetch(`${url}/v1/ids/uuidv7?gene=3`);
    assert.equal(other.status, 400);
    assert.match(((await other.json()) as Body).error.message, /snowflake only/);
  });

  test('the client asks for a layout and a gene; bad options fail before any request', async () => {
    const client = createClient({ urls: [url] });
    try {
      const ids = await client.batch('snowflake', 50, { layout: 'gene-8', geneFrom: USER });
      for (const id of ids) assert.equal(shardOf(id, 256), shardOf(USER, 256));
      const one = await client.next('snowflake', { layout: 'gene-8', geneFrom: String(USER) });
      assert.equal(shardOf(one, 64), shardOf(USER, 64));
      assert.equal(shardOf(await client.next('snowflake', { layout: 'gene-8', gene: 9 }), 256), 9);
      await assert.rejects(client.batch('ulid', 1, { gene: 1 }), RangeError);
      await assert.rejects(
        client.batch('snowflake', 1, { layout: 'gene-8', gene: 1, geneFrom: 2n }),
        TypeError,
      );
      await assert.rejects(client.batch('snowflake', 1, { geneFrom: -1n }), RangeError);
      await assert.rejects(client.batch('snowflake', 1, { geneFrom: '1e3' }), TypeError);
      await assert.rejects(client.batch('snowflake', 1, { gene: 1.5 }), RangeError);
      // The service's refusal reaches the caller typed.
      await assert.rejects(client.batch('snowflake', 1, { gene: 1 }), ServiceRejectedError);
      assert.equal(client.stats().servers[0]!.failures ?? 0, 0);
    } finally {
      client.close();
    }
  });
});
