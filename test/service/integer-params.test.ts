// Issue 19 §13: `count` was looser than documented. Ajv's type coercion read 0x10, 1e3, 0b11,
// +7, 5.0 and " 5" as numbers; docs/service.md says count is an integer in decimal digits.
// The same holds for every integer query parameter (size of a segment, gene).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTestService, type TestService } from '../helpers/service.js';

const LOOSE = [
  '0x10',
  '1e3',
  '0b11',
  '0o7',
  '+7',
  '%2B7',
  '5.0',
  '%205',
  '5%20',
  '-0',
  'Infinity',
  '',
];

let s: TestService;
before(async () => {
  s = await openTestService({ layouts: ['gene-8'] });
});
after(() => s.close());

const routes: ((v: string) => { name: string; url: string; method?: 'POST' })[] = [
  (v: string) => ({ name: 'count', url: `/v1/ids/uuidv4?count=${v}` }),
  (v: string) => ({ name: 'count', url: `/v1/sequences/c?count=${v}` }),
  (v: string) => ({
    name: 'size',
    url: `/v1/sequences/c/segments?size=${v}`,
    method: 'POST' as const,
  }),
  (v: string) => ({ name: 'gene', url: `/v1/ids/snowflake?layout=gene-8&gene=${v}` }),
];

test('an integer query parameter in anything but decimal digits is a 400 naming it', async () => {
  for (const route of routes) {
    for (const v of LOOSE) {
      const { name, url, method } = route(v);
      const r = await s.app.inject({ url, method: method ?? 'GET' });
      assert.equal(r.statusCode, 400, `${url}: ${r.statusCode} ${r.body.slice(0, 120)}`);
      const e = r.json().error;
      assert.equal(e.code, 'IDF_BAD_REQUEST', url);
      assert.match(e.message, new RegExp(name), `${url}: ${e.message}`);
    }
  }
});

test('decimal digits are still accepted', async () => {
  for (const url of ['/v1/ids/uuidv4?count=5', '/v1/ids/uuidv4?count=007', '/v1/ids/uuidv4']) {
    const r = await s.app.inject(url);
    assert.equal(r.statusCode, 200, url);
  }
  assert.equal((await s.app.inject('/v1/ids/uuidv4?count=7')).json().ids.length, 7);
  const g = await s.app.inject('/v1/ids/snowflake?layout=gene-8&gene=3');
  assert.equal(g.statusCode, 200, g.body);
});
