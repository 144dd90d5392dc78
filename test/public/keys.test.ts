// The key file format: format → parse round trips, comma-separated entries (the environment
// variable), every malformed entry refused with its line and never the key, key generation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fixedRandom } from '../../packages/idforge/src/core/index.js';
import { PublicKeysInvalidError } from '../../packages/idforge/src/public/index.js';
import {
  formatPublicKeys,
  generatePublicKey,
  type PublicKey,
  parsePublicKeys,
} from '../../packages/idforge/src/public/keys.js';

const keyArb: fc.Arbitrary<PublicKey> = fc.record(
  {
    version: fc.integer({ min: 0, max: 61 }),
    key: fc.oneof(
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
    ),
    retired: fc.constant(true),
  },
  { requiredKeys: ['version', 'key'] },
);

test('formatPublicKeys → parsePublicKeys gives the keys back, sorted by version', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(keyArb, { minLength: 1, maxLength: 8, selector: (k) => k.version }),
      (keys) => {
        const back = parsePublicKeys(formatPublicKeys(keys));
        const want = [...keys]
          .sort((a, b) => a.version - b.version)
          .map((k) =>
            k.retired
              ? { version: k.version, key: k.key, retired: true }
              : { version: k.version, key: k.key },
          );
        assert.deepEqual(back, want);
      },
    ),
    { seed: 3, numRuns: 300 },
  );
});

test('the file text: comments, blank lines, comma-separated entries, CRLF', () => {
  const k16 = 'AAECAwQFBgcICQoLDA0ODw';
  const text = `# keys\r\n\r\n  1:${k16}:retired , 2:${k16}\r\n# end\n`;
  const keys = parsePublicKeys(text);
  assert.deepEqual(
    keys.map((k) => [k.version, k.retired === true, k.key.length]),
    [
      [1, true, 16],
      [2, false, 16],
    ],
  );
  assert.deepEqual([...keys[0]!.key], [...Array(16).keys()]);
  assert.equal(
    formatPublicKeys(keys)
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join(','),
    `1:${k16}:retired,2:${k16},`,
  );
});

test('every malformed entry is refused with its line, and the key is never quoted', () => {
  const k = 'AAECAwQFBgcICQoLDA0ODw';
  const secret = 'c2VjcmV0c2VjcmV0c2VjcmV0'; // 18 bytes: wrong size
  const cases: [string, number | undefined, RegExp][] = [
    ['', undefined, /no key found/],
    ['# only a comment\n', undefined, /no key found/],
    [`1:${k}\nnonsense`, 2, /expected VERSION:KEY/],
    [`x:${k}`, 1, /version "x" is not an integer in 0..61/],
    [`100:${k}`, 1, /version "100" is not an integer in 0..61/],
    // The two swapped: the key is named by its length, none of it quoted.
    [`${k}:1`, 1, /version of 22 characters is not an integer in 0..61/],
    [`62:${k}`, 1, /not an integer in 0..61/],
    [`-1:${k}`, 1, /not an integer/],
    [`1:${k}\n\n1:${k}`, 3, /version 1 is listed twice/],
    [`1:${k},1:${k}`, 1, /listed twice/],
    [`1:${secret}`, 1, /not 16 or 32 bytes of base64url \(24 characters\)/],
    [`1:${k.slice(0, -1)}x`, 1, /not 16 or 32 bytes/], // spare bits not zero
    [`1:${k.replace('A', '+')}`, 1, /not 16 or 32 bytes/],
    [`1:${k}:old`, 1, /unknown flag "old"/],
    [`1:${k}:retired:x`, 1, /expected VERSION:KEY/],
  ];
  for (const [text, line, message] of cases) {
    assert.throws(
      () => parsePublicKeys(text),
      (e: unknown) =>
        e instanceof PublicKeysInvalidError &&
        e.code === 'IDF_PUBLIC_KEYS_INVALID' &&
        e.line === line &&
        message.test(e.message) &&
        !e.message.includes(secret) &&
        !e.message.includes(k.slice(0, 8)),
      text,
    );
  }
  assert.throws(() => parsePublicKeys(5 as unknown as string), TypeError);
});

test('generatePublicKey: 16 bytes by default, 32 on request, from the given source', () => {
  const k = generatePublicKey(3, fixedRandom(Uint8Array.of(7)));
  assert.equal(k.version, 3);
  assert.deepEqual([...k.key], Array(16).fill(7));
  assert.equal(generatePublicKey(0, undefined, 32).key.length, 32);
  assert.notDeepEqual(generatePublicKey(1).key, generatePublicKey(1).key);
  assert.throws(() => generatePublicKey(62), { name: 'RangeError', message: /^version: expected/ });
  assert.throws(() => generatePublicKey(1, undefined, 24 as 16), RangeError);
});

test('formatPublicKeys refuses malformed keys and repeated versions', () => {
  const k = generatePublicKey(1);
  assert.throws(() => formatPublicKeys([k, k]), {
    name: 'RangeError',
    message: /^keys\[1\].version/,
  });
  assert.throws(() => formatPublicKeys([{ version: 1, key: new Uint8Array(8) }]), RangeError);
  assert.throws(() => formatPublicKeys('x' as unknown as PublicKey[]), TypeError);
});
