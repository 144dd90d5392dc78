// PublicIds refuses what is not an options object with its own message, naming `options`
// (not a property of it): the first mistake a caller makes is named as made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PublicIds } from '../../packages/idforge/src/public/opaque.js';

for (const options of [42, 'keys', undefined, null, true]) {
  test(`new PublicIds(${String(options)}) is a TypeError about options itself`, () => {
    assert.throws(
      () => new PublicIds(options as never),
      (e: unknown) =>
        e instanceof TypeError && /^options: expected an object with keys, got /.test(e.message),
    );
  });
}
