import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixedRandom, seededRandom } from '../../packages/idforge/src/core/random.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import { isUuid, uuidVariant, uuidVersion } from '../../packages/idforge/src/core/uuid/parse.js';
import { UuidV4Generator, uuidv4, uuidv4Bytes } from '../../packages/idforge/src/core/uuid/v4.js';

const V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('uuidv4() and uuidv4Bytes(): version 4, RFC 9562 variant, lower case, distinct', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const s = uuidv4();
    const b = formatUuid(uuidv4Bytes());
    assert.match(s, V4_RE);
    assert.match(b, V4_RE);
    seen.add(s).add(b);
  }
  assert.equal(seen.size, 20_000);
});

test('version and variant are forced whatever the random bits (all ones, all zeros)', () => {
  // RFC 9562 §5.4: version 0100 in bits 48-51, variant 10 in bits 64-65; the other 122 bits random.
  const ones = new UuidV4Generator({ random: fixedRandom(Uint8Array.of(0xff)) });
  assert.equal(ones.next(), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
  const zeros = new UuidV4Generator({ random: fixedRandom(Uint8Array.of(0)) });
  assert.equal(zeros.next(), '00000000-0000-4000-8000-000000000000');
  assert.deepEqual([...zeros.nextBytes()], [0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0]);
});

test('new UuidV4Generator with a seeded source is reproducible; text and bytes agree', () => {
  const a = new UuidV4Generator({ random: seededRandom(7) });
  const b = new UuidV4Generator({ random: seededRandom(7) });
  for (let i = 0; i < 1000; i++) {
    const s = a.next();
    assert.equal(s, formatUuid(b.nextBytes()));
    assert.equal(uuidVersion(s), 4);
    assert.equal(uuidVariant(s), 'rfc9562');
  }
  assert.notEqual(
    new UuidV4Generator({ random: seededRandom(8) }).next(),
    new UuidV4Generator({ random: seededRandom(7) }).next(),
  );
});

test('nextBytes and uuidv4Bytes write into a caller buffer at an offset, nothing else', () => {
  const out = new Uint8Array(40).fill(0xee);
  assert.equal(uuidv4Bytes(out, 20), out);
  assert.ok(out.subarray(0, 20).every((x) => x === 0xee));
  assert.ok(out.subarray(36).every((x) => x === 0xee));
  assert.ok(isUuid(formatUuid(out, 20), 4));
  const g = new UuidV4Generator({ random: seededRandom(1) });
  assert.equal(g.nextBytes(out, 24), out);
  assert.ok(isUuid(formatUuid(out, 24), 4));
});

test('misuse: no room, bad offset, bad options', () => {
  assert.throws(() => uuidv4Bytes(new Uint8Array(15)), RangeError);
  assert.throws(() => uuidv4Bytes(new Uint8Array(32), 17), RangeError);
  assert.throws(() => uuidv4Bytes(new Uint8Array(32), -1), RangeError);
  assert.throws(() => uuidv4Bytes(new Uint8Array(32), 1.5), RangeError);
  assert.throws(() => uuidv4Bytes([] as never), TypeError);
  assert.throws(() => new UuidV4Generator({ random: {} as never }), TypeError);
  assert.throws(() => new UuidV4Generator(null as never), TypeError);
  assert.throws(() => new UuidV4Generator().nextBytes(new Uint8Array(8)), RangeError);
});
