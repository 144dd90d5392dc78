// The key file's text is the standard unpadded base64url of each key (RFC 4648 §5), so a
// key written by another tool (Buffer, openssl | basenc) reads the same, and formatPublicKeys
// writes what those tools read: compared with Node's own encoder, not with our parser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatPublicKeys, parsePublicKeys } from '../../packages/idforge/src/public/keys.js';

const keyBytes = fc.oneof(
  fc.uint8Array({ minLength: 16, maxLength: 16 }),
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
);

test("formatPublicKeys writes each key as Node's unpadded base64url", () => {
  fc.assert(
    fc.property(keyBytes, fc.integer({ min: 0, max: 61 }), (key, version) => {
      const lines = formatPublicKeys([{ version, key }]).trim().split('\n');
      // The comment lines first, then one line per key.
      assert.equal(lines.at(-1), `${version}:${Buffer.from(key).toString('base64url')}`);
    }),
  );
});

test("parsePublicKeys reads a key Node's encoder wrote", () => {
  fc.assert(
    fc.property(keyBytes, (key) => {
      const [parsed] = parsePublicKeys(`7:${Buffer.from(key).toString('base64url')}`);
      assert.deepEqual(parsed, { version: 7, key });
    }),
  );
});
