// What the rate limit counts a request against: its token's name when it has one (every
// address of a token shares one budget), else its client address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateKey } from '../../packages/server/src/service/http/rate-limit.js';

test('a request with a token is counted by the token, one without by its address', () => {
  assert.equal(rateKey({ name: 'api' }, '10.0.0.1'), 'token:api');
  assert.equal(rateKey({ name: 'api' }, '10.0.0.2'), 'token:api');
  assert.equal(rateKey(null, '10.0.0.1'), 'ip:10.0.0.1');
  assert.notEqual(rateKey(null, '10.0.0.1'), rateKey(null, '10.0.0.2'));
});
