// Tamper evidence: every single-character change of a valid public ID is rejected (tried at
// every position with every character), as are insertions, deletions, random strings of the
// right shape, and a valid ID presented under another prefix. Keys are fixed, so the run is
// deterministic; a forgery passes with probability 2^-64 (64-bit) or 2^-40 (128-bit) per
// guess, so none of these thousands of tries may pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { seededRandom } from '../../packages/idforge/src/core/index.js';
import { storeWord, swapWord } from '../../packages/idforge/src/public/aes.js';
import { encodeBase64url } from '../../packages/idforge/src/public/base64url.js';
import { PublicIdInvalidError } from '../../packages/idforge/src/public/index.js';
import { generatePublicKey } from '../../packages/idforge/src/public/keys.js';
import { PublicIds } from '../../packages/idforge/src/public/opaque.js';
import { VersionKey } from '../../packages/idforge/src/public/version-key.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const OTHERS = `${B64}=+/. é😀\u0000`;
const keys = [
  generatePublicKey(1, seededRandom(101)),
  generatePublicKey(2, seededRandom(102), 32),
  generatePublicKey(3, seededRandom(103)),
];
const ids = new PublicIds({ keys });

function rejected(publicId: string, prefix: string | undefined): PublicIdInvalidError {
  try {
    ids.decode(publicId, prefix);
  } catch (e) {
    if (e instanceof PublicIdInvalidError) return e;
    throw e;
  }
  assert.fail(`accepted ${JSON.stringify(publicId)} (prefix ${prefix})`);
}

const samples: [bigint | Uint8Array, string | undefined][] = [
  [0n, undefined],
  [1n, 'inv'],
  [(1n << 64n) - 1n, 'order_item'],
  [1234567890123456789n, 'u'],
  [new Uint8Array(16), undefined],
  [Uint8Array.from({ length: 16 }, (_, i) => i * 17), 'usr'],
  [new Uint8Array(16).fill(255), 'a_b9'],
];

test('every single-character change of a valid ID, at every position, is rejected', () => {
  let tried = 0;
  for (const [id, prefix] of samples) {
    const good = ids.encode(id, prefix);
    assert.deepEqual(ids.decode(good, prefix), id);
    const points = Array.from(good);
    for (let i = 0; i < points.length; i++) {
      for (const ch of OTHERS) {
        if (ch === points[i]) continue;
        const bad = [...points.slice(0, i), ch, ...points.slice(i + 1)].join('');
        rejected(bad, prefix);
        tried++;
      }
    }
  }
  assert.ok(tried > 10000, `${tried} changes tried`);
});

test('the reason names what is wrong: version, alphabet, prefix or the failed check', () => {
  const good = ids.encode(77n, 'inv'); // inv_3...
  assert.equal(rejected(`inv_2${good.slice(5)}`, 'inv').reason, 'forged'); // another held key
  assert.equal(rejected(`inv_9${good.slice(5)}`, 'inv').reason, 'version'); // not held
  assert.equal(rejected(`inv_3${good.slice(5, -1)}=`, 'inv').reason, 'alphabet');
  // 22 characters carry 132 bits for 128: the last character's 4 spare bits must be zero
  const last = good.at(-1)!;
  const spare = B64[B64.indexOf(last) + 1]!;
  assert.equal(rejected(`${good.slice(0, -1)}${spare}`, 'inv').reason, 'alphabet');
  assert.equal(rejected(`ixv_${good.slice(4)}`, 'inv').reason, 'prefix');
  assert.equal(rejected(good, undefined).reason, 'prefix');
  assert.equal(rejected(good.slice(4), 'inv').reason, 'prefix');
  const good128 = ids.encode(new Uint8Array(16).fill(7), 'inv'); // 'inv_' and 29 characters
  assert.notEqual(good128[good128.length - 24], '_', 'no separator where a 64-bit one would be');
  assert.equal(rejected(good128, undefined).reason, 'prefix');
  assert.equal(rejected(`${good}A`, 'inv').reason, 'length');
  assert.equal(rejected(good.slice(0, -1), 'inv').reason, 'length');
  assert.equal(rejected('', undefined).reason, 'length');
});

test('a public ID of the wrong length is refused in plain words: the lengths it takes, then its own', () => {
  const message = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      if (e instanceof PublicIdInvalidError && e.reason === 'length') return e.message;
      throw e;
    }
    assert.fail('accepted');
  };
  assert.equal(
    message(() => ids.decode('inv_ab', 'inv')),
    '"inv_ab" is not a public ID issued by these keys with prefix "inv": expected 23 characters ' +
      '(a 64-bit public ID) or 29 (a 128-bit one) after "inv_", got 2',
  );
  assert.match(
    message(() => ids.decode64('ab')),
    /: expected 23 characters \(a 64-bit public ID\), got 2$/,
  );
  assert.match(
    message(() => ids.decode128('ab')),
    /: expected 29 characters \(a 128-bit public ID\), got 2$/,
  );
});

test('a 64-bit block right in one redundancy word and wrong in the other is forged', () => {
  // Made with the key itself, as only a forger holding half a check could: each of the two
  // redundancy words must be checked on its own (a one-character change alters both at once).
  const vk = new VersionKey(keys[2]!);
  const made = (prefix: string | undefined, r2: number, r3: number) => {
    const o = vk.k64.encrypt(swapWord(0), swapWord(42), r2, r3);
    const b = new Uint8Array(16);
    for (const [i, w] of [o.s0, o.s1, o.s2, o.s3].entries()) storeWord(b, 4 * i, w);
    return `${prefix === undefined ? '' : `${prefix}_`}3${encodeBase64url(b, 16)}`;
  };
  for (const prefix of [undefined, 'inv']) {
    const t = vk.tweak(prefix ?? '');
    assert.equal(ids.decode(made(prefix, t.r2, t.r3), prefix), 42n, 'both words right: genuine');
    assert.equal(rejected(made(prefix, t.r2, t.r3 ^ 1), prefix).reason, 'forged');
    assert.equal(rejected(made(prefix, t.r2 ^ 0x80000000, t.r3), prefix).reason, 'forged');
  }
});

test('insertions and deletions of one character are rejected', () => {
  for (const [id, prefix] of samples) {
    const good = ids.encode(id, prefix);
    for (let i = 0; i <= good.length; i++) {
      if (i < good.length) rejected(good.slice(0, i) + good.slice(i + 1), prefix);
      for (const ch of 'A_-z9') rejected(good.slice(0, i) + ch + good.slice(i), prefix);
    }
  }
});

test('a valid ID presented under another prefix (or none) is rejected', () => {
  for (const [id, prefix] of samples) {
    const good = ids.encode(id, prefix);
    const body = prefix === undefined ? good : good.slice(prefix.length + 1);
    for (const other of [undefined, 'inv', 'usr', 'order', 'order_item', 'u', 'a_b9']) {
      if (other === prefix) continue;
      const swapped = other === undefined ? body : `${other}_${body}`;
      const e = rejected(swapped, other);
      assert.equal(e.reason, 'forged', `${swapped} as ${other}`);
    }
  }
});

test('random strings of the right shape are rejected (fixed seed)', () => {
  const body = (n: number) =>
    fc.array(fc.constantFrom(...B64), { minLength: n, maxLength: n }).map((a) => a.join(''));
  fc.assert(
    fc.property(fc.constantFrom('1', '2', '3'), fc.oneof(body(22), body(28)), (v, b) => {
      const e = rejected(`inv_${v}${b}`, 'inv');
      assert.ok(e.reason === 'forged' || e.reason === 'alphabet', e.reason);
    }),
    { seed: 4242, numRuns: 20000 },
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (s) => {
      rejected(s, undefined);
    }),
    { seed: 4243, numRuns: 5000 },
  );
});
