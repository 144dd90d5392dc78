// HLC timestamps: packed and text forms round-trip, string order equals numeric order, and
// every malformed text is refused with its reason at every position.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { InvalidIdError } from '../../packages/idforge/src/core/index.js';
import {
  compareHlc,
  formatHlc,
  HLC_MAX_C,
  HLC_MAX_L,
  HLC_TEXT_LENGTH,
  type HlcTimestamp,
  packHlc,
  parseHlc,
  unpackHlc,
} from '../../packages/idforge/src/hlc/index.js';

const tsArb: fc.Arbitrary<HlcTimestamp> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0, max: HLC_MAX_L }), fc.constantFrom(0, HLC_MAX_L)),
    fc.oneof(fc.integer({ min: 0, max: HLC_MAX_C }), fc.constantFrom(0, HLC_MAX_C)),
  )
  .map(([l, c]) => ({ l, c }));

test('vectors: the text form and the packing of known timestamps', () => {
  const rows: [HlcTimestamp, string, bigint][] = [
    [{ l: 0, c: 0 }, '000000000000-0000', 0n],
    [{ l: 0x0193e0c1a2b4, c: 0 }, '0193e0c1a2b4-0000', 0x0193e0c1a2b40000n],
    [{ l: 1_767_225_600_000, c: 10 }, '019b76daa800-000a', 0x019b76daa800000an],
    [{ l: HLC_MAX_L, c: HLC_MAX_C }, 'ffffffffffff-ffff', 2n ** 64n - 1n],
  ];
  for (const [ts, text, packed] of rows) {
    assert.equal(formatHlc(ts), text);
    assert.deepEqual(parseHlc(text), ts);
    assert.equal(packHlc(ts), packed);
    assert.deepEqual(unpackHlc(packed), ts);
  }
  assert.equal(HLC_TEXT_LENGTH, 17);
});

test('property: parse(format(t)) = t, unpack(pack(t)) = t, pack(unpack(b)) = b', () => {
  fc.assert(
    fc.property(tsArb, (t) => {
      const text = formatHlc(t);
      assert.equal(text.length, HLC_TEXT_LENGTH);
      assert.deepEqual(parseHlc(text), t);
      assert.deepEqual(unpackHlc(packHlc(t)), t);
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (b) => {
      assert.equal(packHlc(unpackHlc(b)), b);
    }),
    { numRuns: 300 },
  );
});

test('property: string order and packed order both equal compareHlc order', () => {
  const sign = (x: number | bigint) => (x > 0 ? 1 : x < 0 ? -1 : 0);
  const pairArb = fc.oneof(
    fc.tuple(tsArb, tsArb),
    // Close pairs, so equal l with different c (and equal timestamps) are common.
    fc
      .tuple(tsArb, fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }))
      .map(([a, dl, dc]): [HlcTimestamp, HlcTimestamp] => [
        a,
        {
          l: Math.min(Math.max(a.l + dl, 0), HLC_MAX_L),
          c: Math.min(Math.max(a.c + dc, 0), HLC_MAX_C),
        },
      ]),
  );
  fc.assert(
    fc.property(pairArb, ([a, b]) => {
      const order = compareHlc(a, b);
      const fa = formatHlc(a);
      const fb = formatHlc(b);
      assert.equal(fa < fb ? -1 : fa > fb ? 1 : 0, order);
      assert.equal(sign(packHlc(a) - packHlc(b)), order);
      assert.equal(compareHlc(b, a) + order, 0);
    }),
    { numRuns: 500 },
  );
});

function rejects(text: string, reason: string, position: number | undefined): void {
  assert.throws(
    () => parseHlc(text),
    (e: unknown) => {
      assert.ok(e instanceof InvalidIdError, `${JSON.stringify(text)}: ${String(e)}`);
      assert.equal(e.code, 'IDF_INVALID_ID');
      assert.equal(e.scheme, 'hlc');
      assert.equal(e.reason, reason, JSON.stringify(text));
      assert.equal(e.position, position, JSON.stringify(text));
      return true;
    },
  );
}

test('malformed: every length but 17 is refused (reason length)', () => {
  const good = '0193e0c1a2b4-0000';
  for (let n = 0; n <= 40; n++) {
    if (n === HLC_TEXT_LENGTH) continue;
    rejects(good.repeat(3).slice(0, n), 'length', undefined);
  }
});

test('malformed: anything but "-" at position 12 is refused (reason format)', () => {
  for (const ch of ['0', 'a', '_', ':', ' ', '.', '\u2010', '\u2212']) {
    rejects(`0193e0c1a2b4${ch}0000`, 'format', 12);
  }
});

test('malformed: a non-hex character at every digit position is refused (reason alphabet)', () => {
  const good = '0193e0c1a2b4-0000';
  // Upper case is refused too: one timestamp has one text. Then letters past f, separators,
  // characters next to the digit ranges in ASCII, a non-ASCII digit and a full-width zero.
  const bad = ['A', 'B', 'F', 'g', 'z', 'G', '-', ' ', '/', ':', '@', '`', '\u0660', '\uff10'];
  for (let i = 0; i < HLC_TEXT_LENGTH; i++) {
    if (i === 12) continue;
    for (const ch of bad) rejects(good.slice(0, i) + ch + good.slice(i + 1), 'alphabet', i);
  }
});

test('misuse: wrong types and out-of-range values are TypeError / RangeError', () => {
  assert.throws(() => parseHlc(17 as never), TypeError);
  assert.throws(() => unpackHlc(1 as never), TypeError);
  assert.throws(() => unpackHlc(-1n), RangeError);
  assert.throws(() => unpackHlc(2n ** 64n), RangeError);
  assert.throws(() => packHlc({ l: 2 ** 48, c: 0 }), /packHlc ts\.l: expected an integer/);
  assert.throws(() => packHlc({ l: 1.5, c: 0 }), RangeError);
  assert.throws(() => packHlc({ l: 0, c: -1 }), RangeError);
  assert.throws(() => formatHlc({ l: 0, c: 2 ** 16 }), RangeError);
  assert.throws(() => formatHlc({ l: '0', c: 0 } as never), TypeError);
  assert.throws(() => compareHlc({ l: 0, c: 0 }, null as never), TypeError);
});
