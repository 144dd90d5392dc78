// Issue 33 item 5: a 400 says what is wrong, over real sockets, on the app with the fast lane
// and on one without (the lane hands every refused request to the routes; both must answer
// the same words). Ajv's own words ("must NOT have additional properties", "must be equal to
// one of the allowed values", "must be integer" for a parameter given twice) named neither the
// parameter, nor the allowed values, nor the mistake.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../packages/server/src/service/index.js';
import { openTestService, type TestService } from '../helpers/service.js';

const ADMIN = 'bad-request-admin-token-0123456';
const IDS = 'bad-request-ids-token-012345678';

describe('a 400 names the parameter, the allowed values, the mistake', () => {
  let s: TestService;
  let plain: FastifyInstance;
  const urls: string[] = [];

  before(async () => {
    s = await openTestService(
      { layouts: ['sonyflake'], tokens: [{ name: 'ids', token: IDS }] },
      { IDFORGE_ADMIN_TOKEN: ADMIN },
    );
    plain = await buildApp(s.deps, { fastLane: false });
    urls.push(await s.app.listen({ host: '127.0.0.1', port: 0 }));
    urls.push(await plain.listen({ host: '127.0.0.1', port: 0 }));
  });
  after(async () => {
    await plain.close();
    await s.close();
  });

  /** The message of the 400 both apps answer to `path` (the same one, checked). */
  async function message(
    path: string,
    init: RequestInit = { headers: { authorization: `Bearer ${IDS}` } },
  ): Promise<string> {
    const answers = [];
    for (const base of urls) {
      const r = await fetch(base + path, init);
      answers.push({ status: r.status, body: await r.text() });
    }
    assert.deepEqual(answers[0], answers[1], `${path}: the lane's app and the routes' agree`);
    const { status, body } = answers[0]!;
    assert.equal(status, 400, `${path}: ${body}`);
    const { code, message } = (JSON.parse(body) as { error: { code: string; message: string } })
      .error;
    assert.equal(code, 'IDF_BAD_REQUEST');
    return message;
  }

  test('an unknown query parameter is named, with a near miss and the parameters there are', async () => {
    assert.equal(
      await message('/v1/ids/uuidv4?cnt=2'),
      'querystring has no parameter "cnt" (did you mean "count"?); ' +
        'its parameters are count, layout, gene, geneFrom',
    );
    assert.equal(
      await message('/v1/ids/uuidv4?Count=2'),
      'querystring has no parameter "Count" (did you mean "count"?); ' +
        'its parameters are count, layout, gene, geneFrom',
    );
    // Far from every name: no guess.
    assert.equal(
      await message('/v1/inspect/1?format=x'),
      'querystring has no parameter "format"; its parameters are scheme, layout',
    );
  });

  test('a value outside an enum is shown with the allowed values', async () => {
    assert.equal(
      await message('/v1/ids/bogus'),
      'params/scheme must be one of uuidv4, uuidv7, ulid, ksuid, snowflake, hlc; got "bogus"',
    );
    assert.equal(
      await message('/v1/ids/snowflake?layout=discord'),
      'querystring/layout must be one of default, sonyflake; got "discord"',
    );
  });

  test('a parameter given twice says so, whatever its type', async () => {
    assert.equal(
      await message('/v1/ids/uuidv4?count=1&count=2'),
      'querystring/count is given twice: give it once',
    );
    assert.equal(
      await message('/v1/ids/snowflake?layout=default&layout=sonyflake&layout=default'),
      'querystring/layout is given 3 times: give it once',
    );
  });

  test('a JSON body: an unknown property is named the same way', async () => {
    const init = {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stpe: 10 }),
    };
    assert.equal(
      await message('/v1/sequences/bad-request-messages', init),
      'body has no property "stpe" (did you mean "step"?); ' +
        'its properties are step, start, description, format, reset, timeZone, prefix',
    );
  });
});
