// TokenAuth with a single configured token (found by the mutation run, issue 34): auth is on
// (a request without a token is refused, not served as on an open service), and a missing
// header is told what to send rather than called malformed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenAuth } from '../../packages/server/src/service/http/auth.js';
import { HttpError } from '../../packages/server/src/service/http/errors.js';

const one = new TokenAuth([
  {
    name: 'api',
    token: 'only-token-0123456789abcdef',
    schemes: ['*'],
    tags: ['*'],
    admin: false,
    scopes: ['ids'],
  },
]);

test('one token configured: auth is on, and no token is a 401 saying what to send', () => {
  assert.equal(one.enabled, true);
  assert.throws(
    () => one.identify(undefined),
    (e: unknown) =>
      e instanceof HttpError &&
      e.statusCode === 401 &&
      /needs a token: send "Authorization: Bearer/.test(e.message),
  );
  assert.equal(one.identify('Bearer only-token-0123456789abcdef')?.name, 'api');
});

test('no token configured: auth is off and a request without one is nobody', () => {
  const none = new TokenAuth([]);
  assert.equal(none.enabled, false);
  assert.equal(none.identify(undefined), null);
});
