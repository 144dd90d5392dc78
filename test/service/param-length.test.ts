// Issue 19 §7: tags of 101 to 128 characters could be created but never served: the schema
// and MAX_TAG_LENGTH allow 128, Fastify's maxParamLength was 100 (a 414 in Fastify's shape).
// Now the router's limit is the tag limit, and a longer parameter is a 414 in idforge's shape.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_TAG_LENGTH } from '../../packages/idforge/src/sequences/index.js';
import { openTestService, type TestService } from '../helpers/service.js';

const ADMIN = 'admin-token-19-param-length-000';
const auth = { authorization: `Bearer ${ADMIN}` };

let s: TestService;
before(async () => {
  s = await openTestService({}, { IDFORGE_ADMIN_TOKEN: ADMIN });
});
after(() => s.close());

test('a tag of every length from 100 to MAX_TAG_LENGTH is created and served', async () => {
  for (const n of [100, 101, 127, MAX_TAG_LENGTH]) {
    // non-ASCII too: the limit counts characters, not percent-encoded bytes
    for (const tag of ['t'.repeat(n), `é${'t'.repeat(n - 1)}`]) {
      const path = `/v1/sequences/${encodeURIComponent(tag)}`;
      const made = await s.app.inject({ method: 'POST', url: path, headers: auth, payload: {} });
      assert.equal(made.statusCode, 201, `create ${n}: ${made.body.slice(0, 200)}`);
      const r = await s.app.inject({ url: `${path}?count=2`, headers: auth });
      assert.equal(r.statusCode, 200, `serve ${n}: ${r.body.slice(0, 200)}`);
      assert.deepEqual(r.json(), { ids: ['1', '2'] });
      const seg = await s.app.inject({ method: 'POST', url: `${path}/segments`, headers: auth });
      assert.equal(seg.statusCode, 200, `segment ${n}: ${seg.body.slice(0, 200)}`);
      const leaf = await s.app.inject({
        url: `/api/segment/get/${encodeURIComponent(tag)}`,
        headers: auth,
      });
      assert.equal(leaf.statusCode, 200, `leaf ${n}: ${leaf.body.slice(0, 200)}`);
    }
  }
});

test('a parameter over MAX_TAG_LENGTH is a 414 IDF_BAD_REQUEST naming the limit', async () => {
  const r = await s.app.inject({
    url: `/v1/sequences/${'t'.repeat(MAX_TAG_LENGTH + 1)}`,
    headers: auth,
  });
  assert.equal(r.statusCode, 414);
  assert.equal(r.json().error.code, 'IDF_BAD_REQUEST');
  assert.match(r.json().error.message, new RegExp(`${MAX_TAG_LENGTH} characters`));
});
