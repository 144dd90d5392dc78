// GET /v1/sequences/{tag} of a formatted tag (idforge seq create --format): the period's
// numbers in ids, as the format prints them in formatted, the period's key; one per line as
// text; a plain tag keeps its answer; the OpenAPI document names the new fields.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defineNumberFormat, describeFormat } from '../../packages/idforge/src/sequences/index.js';
import { openTestService, type TestService } from '../helpers/service.js';

let s: TestService;
const ADMIN = 'admin-token-formatted-0123456789';
const auth = { authorization: `Bearer ${ADMIN}` };
const format = defineNumberFormat('INV-{yyyy}-{mm}-{n:6}', {
  reset: 'monthly',
  timeZone: 'Asia/Tokyo',
});

before(async () => {
  s = await openTestService({}, { IDFORGE_ADMIN_TOKEN: ADMIN });
  const segments = s.deps.sequences.source!.segments!;
  await segments.createTag('invoices', { step: 10, description: describeFormat(format) });
  await segments.createTag('orders', { step: 10 });
  await segments.createTag('parcels', { step: 10 });
});
after(() => s.close());

test('a formatted tag answers formatted numbers of its period; text/plain one per line', async () => {
  const before = format.periodAt(Date.now()).key;
  const r = await s.app.inject({ url: '/v1/sequences/invoices?count=3', headers: auth });
  const after = format.periodAt(Date.now()).key;
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json() as { ids: string[]; formatted: string[]; period: string };
  assert.ok([before, after].includes(body.period), body.period);
  const [yyyy, mm] = body.period.split('-');
  assert.deepEqual(body.ids, ['1', '2', '3']);
  assert.deepEqual(
    body.formatted,
    [1, 2, 3].map((n) => `INV-${yyyy}-${mm}-00000${n}`),
  );
  const text = await s.app.inject({
    url: '/v1/sequences/invoices?count=2',
    headers: { ...auth, accept: 'text/plain' },
  });
  assert.equal(text.body, `INV-${yyyy}-${mm}-000004\nINV-${yyyy}-${mm}-000005\n`);
  const tags = (await s.deps.sequences.source!.segments!.listTags()).map((t) => t.tag);
  assert.ok(tags.includes(`invoices:${body.period}`), 'the period has its own tag');
});

test('segments of a formatted tag are refused (they follow no period); a plain tag still gets them', async () => {
  const r = await s.app.inject({
    method: 'POST',
    url: '/v1/sequences/invoices/segments',
    headers: auth,
  });
  assert.equal(r.statusCode, 400, r.body);
  assert.equal(r.json().error.code, 'IDF_BAD_REQUEST');
  assert.match(
    r.json().error.message,
    /"invoices" is a formatted tag .* GET \/v1\/sequences\/invoices/,
  );
  const plain = await s.app.inject({
    method: 'POST',
    url: '/v1/sequences/parcels/segments',
    headers: auth,
  });
  assert.equal(plain.statusCode, 200, plain.body);
});

test('a plain tag keeps its answer; an unknown one is still 404', async () => {
  const r = await s.app.inject({ url: '/v1/sequences/orders?count=2', headers: auth });
  assert.equal(r.body, '{"ids":["1","2"]}');
  assert.equal((await s.app.inject({ url: '/v1/sequences/nope', headers: auth })).statusCode, 404);
});

test('the admin route creates a formatted tag as the CLI does; a bad format creates nothing', async () => {
  const bad = await s.app.inject({
    method: 'POST',
    url: '/v1/sequences/receipts',
    headers: auth,
    payload: { step: 10, format: 'R-{n:6}', reset: 'daily' },
  });
  assert.equal(bad.statusCode, 400, bad.body);
  assert.match(bad.body, /\{yyyy\}, \{mm\}, \{dd\} in a pattern that resets daily/);
  assert.equal(await s.deps.sequences.source!.segments!.getTag('receipts'), null);
  const created = await s.app.inject({
    method: 'POST',
    url: '/v1/sequences/receipts',
    headers: auth,
    payload: { step: 10, format: '{prefix}{n36:5}', prefix: 'R-' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const r = await s.app.inject({ url: '/v1/sequences/receipts?count=2', headers: auth });
  assert.deepEqual(r.json(), { ids: ['1', '2'], formatted: ['R-00001', 'R-00002'], period: '' });
});

test('the OpenAPI document names formatted and period', async () => {
  const doc = (await s.app.inject('/openapi.json')).json() as {
    paths: Record<
      string,
      {
        get: {
          responses: Record<
            string,
            { content: Record<string, { schema: { properties: object } }> }
          >;
        };
      }
    >;
  };
  const ok = doc.paths['/v1/sequences/{tag}']!.get.responses['200']!;
  const props = Object.keys(Object.values(ok.content)[0]!.schema.properties);
  assert.deepEqual(props.sort(), ['formatted', 'ids', 'period']);
});
