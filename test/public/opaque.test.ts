// PublicIds: round trips for 64- and 128-bit IDs with and without prefixes across key
// versions (fast-check), the pinned wire format, rotation and retirement, and misuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { seededRandom } from '../../packages/idforge/src/core/index.js';
import {
  PublicIdInvalidError,
  PublicKeyRetiredError,
} from '../../packages/idforge/src/public/index.js';
import { generatePublicKey, type PublicKey } from '../../packages/idforge/src/public/keys.js';
import {
  PUBLIC_ID_64_LENGTH,
  PUBLIC_ID_128_LENGTH,
  PublicIds,
} from '../../packages/idforge/src/public/opaque.js';

const fromHex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
const key = (version: number, seed: number, bytes: 16 | 32 = 16, retired = false): PublicKey => ({
  ...generatePublicKey(version, seededRandom(seed), bytes),
  ...(retired ? { retired } : {}),
});

const prefixArb = fc.option(fc.stringMatching(/^[a-z](?:[a-z0-9_]{0,10}[a-z0-9])?$/), {
  nil: undefined,
});
const id64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const id128 = fc.uint8Array({ minLength: 16, maxLength: 16 });

test('64-bit IDs round trip, with and without prefix, under 16- and 32-byte keys', () => {
  const sets = [new PublicIds({ keys: [key(1, 1)] }), new PublicIds({ keys: [key(7, 2, 32)] })];
  fc.assert(
    fc.property(id64, prefixArb, fc.integer({ min: 0, max: 1 }), (id, prefix, s) => {
      const ids = sets[s]!;
      const p = ids.encode(id, prefix);
      const head = prefix === undefined ? 0 : prefix.length + 1;
      assert.equal(p.length, head + PUBLIC_ID_64_LENGTH);
      assert.match(p.slice(head), /^[0-9a-zA-Z][A-Za-z0-9_-]{21}[AQgw]$/);
      assert.equal(ids.decode(p, prefix), id);
      assert.equal(ids.decode64(p, prefix), id);
    }),
    { seed: 64, numRuns: 2000 },
  );
});

test('128-bit IDs round trip, with and without prefix, and the result is a fresh array', () => {
  const ids = new PublicIds({ keys: [key(3, 3), key(4, 4, 32)] });
  fc.assert(
    fc.property(id128, prefixArb, (id, prefix) => {
      const p = ids.encode(id, prefix);
      const head = prefix === undefined ? 0 : prefix.length + 1;
      assert.equal(p.length, head + PUBLIC_ID_128_LENGTH);
      const back = ids.decode(p, prefix);
      assert.ok(back instanceof Uint8Array && back !== id);
      assert.deepEqual(back, id);
      assert.deepEqual(ids.decode128(p, prefix), id);
    }),
    { seed: 128, numRuns: 2000 },
  );
});

test('IDs encoded under every version of a set decode with the set', () => {
  const keys = [key(0, 10), key(1, 11, 32), key(9, 12), key(61, 13)];
  const all = new PublicIds({ keys });
  const each = keys.map((k) => new PublicIds({ keys: [k] }));
  fc.assert(
    fc.property(fc.oneof(id64, id128), prefixArb, fc.integer({ min: 0, max: 3 }), (id, pre, i) => {
      const p = each[i]!.encode(id, pre);
      assert.deepEqual(all.decode(p, pre), id);
    }),
    { seed: 5, numRuns: 1000 },
  );
});

test('the wire format is pinned: a fixed key gives these public IDs (derived, this release)', () => {
  const k: PublicKey = { version: 1, key: fromHex('000102030405060708090a0b0c0d0e0f') };
  const ids = new PublicIds({ keys: [k] });
  const uuid = fromHex('0190a2b4c5d67e8f9a0b1c2d3e4f5061');
  const got = [
    ids.encode(0n),
    ids.encode(1n, 'inv'),
    ids.encode((1n << 64n) - 1n, 'usr'),
    ids.encode(uuid),
    ids.encode(uuid, 'order_item'),
  ];
  assert.deepEqual(got, PINNED);
  assert.equal(ids.decode(PINNED[1]!, 'inv'), 1n);
  assert.deepEqual(ids.decode(PINNED[4]!, 'order_item'), uuid);
});
const PINNED = [
  '1CBaBKI-xAy1U47VgxNvpRg',
  'inv_1SI4sUEld8VAPPw6utg0Ipg',
  'usr_132N3xkecxdn4V9NvyGyYhQ',
  '1Nij1wyDp4g7GMZkWQhithPY5VCvw',
  'order_item_1MUtrEpMRttNg8NTMyBV0fuPfD4lY',
];

test('equal IDs under two prefixes give unrelated public IDs (no shared part)', () => {
  const ids = new PublicIds({ keys: [key(1, 1)] });
  const u = fromHex('0190a2b4c5d67e8f9a0b1c2d3e4f5061');
  const a = ids.encode(u, 'inv').slice(5);
  const b = ids.encode(u, 'usr').slice(5);
  const c = ids.encode(u).slice(1);
  for (const [x, y] of [
    [a, b],
    [a, c],
    [b, c],
  ] as const) {
    let same = 0;
    for (let i = 0; i < x.length; i++) if (x[i] === y[i]) same++;
    assert.ok(same <= 5, `${x} vs ${y}: ${same} characters in place`);
  }
  assert.notEqual(ids.encode(5n, 'inv').slice(4), ids.encode(5n, 'usr').slice(4));
});

test('rotation: v1 IDs still decode after v2 becomes current; retiring v1 names version 1', () => {
  const v1 = key(1, 21);
  const before = new PublicIds({ keys: [v1] });
  const old64 = before.encode(42n, 'inv');
  const old128 = before.encode(fromHex('00112233445566778899aabbccddeeff'));
  assert.equal(old64[4], '1');

  const v2 = key(2, 22);
  const after = new PublicIds({ keys: [v1, v2] });
  assert.equal(after.current, 2);
  assert.deepEqual(after.versions, [1, 2]);
  assert.equal(after.decode(old64, 'inv'), 42n);
  const new64 = after.encode(42n, 'inv');
  assert.equal(new64[4], '2');
  assert.notEqual(new64, old64);
  assert.equal(after.decode(new64, 'inv'), 42n);

  const retired = new PublicIds({ keys: [{ ...v1, retired: true }, v2] });
  for (const p of [old64, old128]) {
    assert.throws(
      () => retired.decode(p, p === old64 ? 'inv' : undefined),
      (e: unknown) =>
        e instanceof PublicKeyRetiredError &&
        e.code === 'IDF_PUBLIC_KEY_RETIRED' &&
        e.version === 1 &&
        /version 1\b/.test(e.message),
    );
  }
  assert.equal(retired.decode(new64, 'inv'), 42n);
  // a made-up ID under the retired version is invalid, not "retired": only genuine ones are.
  const madeUp = `inv_1${'A'.repeat(21)}A`;
  assert.throws(() => retired.decode(madeUp, 'inv'), {
    code: 'IDF_PUBLIC_ID_INVALID',
    reason: 'forged',
  });
  // a version the set does not hold at all
  const v2only = new PublicIds({ keys: [v2] });
  assert.throws(() => v2only.decode(old64, 'inv'), {
    code: 'IDF_PUBLIC_ID_INVALID',
    reason: 'version',
  });
});

test('current: an explicit version encodes (e.g. while the new key reaches every decoder)', () => {
  const ids = new PublicIds({ keys: [key(1, 1), key(2, 2)], current: 1 });
  assert.equal(ids.current, 1);
  assert.equal(ids.encode(1n)[0], '1');
});

test('the same ID, prefix and key always give the same public ID', () => {
  const a = new PublicIds({ keys: [key(1, 1)] });
  const b = new PublicIds({ keys: [key(1, 1)] });
  assert.equal(a.encode(99n, 'inv'), b.encode(99n, 'inv'));
});

test('decode64 / decode128 refuse the other kind as length', () => {
  const ids = new PublicIds({ keys: [key(1, 1)] });
  assert.throws(() => ids.decode64(ids.encode(new Uint8Array(16))), { reason: 'length' });
  assert.throws(() => ids.decode128(ids.encode(1n)), { reason: 'length' });
});

test('misuse throws TypeError / RangeError naming the argument', () => {
  const ids = new PublicIds({ keys: [key(1, 1)] });
  assert.throws(() => ids.encode(-1n), {
    name: 'RangeError',
    message: /^id: expected a bigint in \[0, 2\^64\)/,
  });
  assert.throws(() => ids.encode(1n << 64n), RangeError);
  assert.throws(() => ids.encode(1 as unknown as bigint), {
    name: 'TypeError',
    message: /^id: expected/,
  });
  assert.throws(() => ids.encode(new Uint8Array(15)), {
    name: 'RangeError',
    message: /^id: expected/,
  });
  for (const bad of ['', 'Inv', '1inv', 'inv_', 'in-v', 'a'.repeat(64), 'é']) {
    assert.throws(
      () => ids.encode(1n, bad),
      { name: 'RangeError', message: /^prefix: expected/ },
      bad,
    );
    assert.throws(() => ids.decode('x', bad), RangeError, bad);
  }
  assert.throws(() => ids.decode(5 as unknown as string), {
    name: 'TypeError',
    message: /^publicId:/,
  });
  assert.throws(() => new PublicIds({ keys: [] }), {
    name: 'RangeError',
    message: /^options.keys: expected at least one PublicKey/,
  });
  assert.throws(() => new PublicIds({ keys: 'k' as unknown as [] }), TypeError);
  assert.throws(() => new PublicIds({ keys: [key(1, 1), key(1, 2)] }), {
    name: 'RangeError',
    message: /^options.keys\[1\].version: expected a version not yet listed/,
  });
  assert.throws(() => new PublicIds({ keys: [key(1, 1, 16, true)] }), {
    name: 'RangeError',
    message: /^options.keys: expected at least one key not retired/,
  });
  assert.throws(() => new PublicIds({ keys: [key(62, 1)] }), RangeError);
  assert.throws(() => new PublicIds({ keys: [{ version: 1, key: new Uint8Array(24) }] }), {
    name: 'RangeError',
    message: /^options.keys\[0\].key: expected a Uint8Array\(16 or 32\)/,
  });
  assert.throws(() => new PublicIds({ keys: [key(1, 1, 16, true), key(2, 2)], current: 1 }), {
    message: /^options.current: expected a held version not retired \(2\)/,
  });
});

test('PublicIdInvalidError carries reason, input and prefix, and is an IdforgeError', () => {
  const ids = new PublicIds({ keys: [key(1, 1)] });
  try {
    ids.decode('usr_1AAAAAAAAAAAAAAAAAAAAAA', 'inv');
    assert.fail('accepted');
  } catch (e) {
    assert.ok(e instanceof PublicIdInvalidError);
    assert.equal(e.reason, 'prefix');
    assert.equal(e.prefix, 'inv');
    assert.equal(e.input, 'usr_1AAAAAAAAAAAAAAAAAAAAAA');
    assert.equal(e.name, 'PublicIdInvalidError');
  }
});
