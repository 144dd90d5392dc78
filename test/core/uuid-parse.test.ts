import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { InvalidIdError, type InvalidIdReason } from '../../packages/idforge/src/core/errors.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import {
  isUuid,
  parseUuid,
  uuidVariant,
  uuidVersion,
  validateUuid,
} from '../../packages/idforge/src/core/uuid/parse.js';
import { RFC9562_VECTORS } from '../vectors/uuid.js';

const GOOD = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'; // RFC 9562 §A.6, lower-cased
const HYPHENS = [8, 13, 18, 23];

function rejects(fn: () => unknown, reason: InvalidIdReason, position?: number): void {
  assert.throws(fn, (e: unknown) => {
    if (!(e instanceof InvalidIdError))
      throw new Error(`expected InvalidIdError, got ${String(e)}`);
    assert.equal(e.code, 'IDF_INVALID_ID');
    assert.equal(e.reason, reason, e.message);
    if (position !== undefined) assert.equal(e.position, position, e.message);
    return true;
  });
}

function at(s: string, i: number, ch: string): string {
  return s.slice(0, i) + ch + s.slice(i + 1);
}

describe('RFC 9562 vectors', () => {
  for (const v of RFC9562_VECTORS) {
    test(`${v.source}: ${v.text} is version ${v.version}, variant ${v.variant}`, () => {
      const bytes = parseUuid(v.text);
      assert.equal(formatUuid(bytes), v.text.toLowerCase());
      assert.equal(uuidVersion(v.text), v.version);
      assert.equal(uuidVersion(bytes), v.version);
      assert.equal(uuidVariant(v.text), v.variant);
      assert.equal(uuidVariant(bytes), v.variant);
      assert.equal(isUuid(v.text), true);
      assert.equal(validateUuid(v.text), v.text.toLowerCase());
      if (v.variant === 'rfc9562') {
        assert.deepEqual(parseUuid(v.text, { version: v.version }), bytes);
        assert.equal(isUuid(v.text, v.version), true);
        assert.equal(isUuid(v.text, v.version === 4 ? 7 : 4), false);
      } else {
        // Nil and Max belong to no version: asking for their nibble still fails on variant.
        rejects(() => parseUuid(v.text, { version: v.version }), 'variant', 19);
        assert.equal(isUuid(v.text, v.version), false);
      }
    });
  }
});

describe('variant nibble → variant (RFC 9562 §4.1, Table 1)', () => {
  const expected = ['ncs', 'ncs', 'ncs', 'ncs', 'ncs', 'ncs', 'ncs', 'ncs'] as string[];
  expected.push('rfc9562', 'rfc9562', 'rfc9562', 'rfc9562', 'microsoft', 'microsoft');
  expected.push('future', 'future');
  for (let n = 0; n < 16; n++) {
    test(`nibble ${n.toString(16)} is ${expected[n]}`, () => {
      assert.equal(uuidVariant(at(GOOD, 19, n.toString(16))), expected[n]);
      assert.equal(uuidVariant(at(GOOD, 19, n.toString(16).toUpperCase())), expected[n]);
    });
  }
});

describe('negative cases, exhaustive', () => {
  test('a non-hex character at every position: alphabet (or format at a hyphen)', () => {
    for (let i = 0; i < 36; i++) {
      for (const bad of ['g', 'G', 'z', ' ', '.', '_', '\u0000', 'é', '\uff10', '-']) {
        if (HYPHENS.includes(i) && bad === '-') continue;
        const s = at(GOOD, i, bad);
        const reason = HYPHENS.includes(i) ? 'format' : 'alphabet';
        rejects(() => parseUuid(s), reason, i);
        rejects(() => parseUuid(s, { version: 7 }), reason, i);
        rejects(() => validateUuid(s), reason, i);
        rejects(() => uuidVersion(s), reason, i);
        assert.equal(isUuid(s), false, s);
      }
    }
  });

  test('a hyphen replaced by a hex digit at each hyphen position: format', () => {
    for (const p of HYPHENS) {
      for (const d of ['0', 'a', 'F']) {
        rejects(() => parseUuid(at(GOOD, p, d)), 'format', p);
        assert.equal(isUuid(at(GOOD, p, d)), false);
      }
    }
  });

  test('a hyphen missing at each hyphen position: length', () => {
    for (const p of HYPHENS) {
      const s = GOOD.slice(0, p) + GOOD.slice(p + 1);
      rejects(() => parseUuid(s), 'length');
      assert.equal(isUuid(s), false);
    }
    rejects(() => parseUuid(GOOD.replaceAll('-', '')), 'length');
  });

  test('every length from 0 to 72 except 36: length', () => {
    const long = GOOD + GOOD;
    for (let n = 0; n <= 72; n++) {
      if (n === 36) continue;
      const s = long.slice(0, n);
      rejects(() => parseUuid(s), 'length');
      rejects(() => validateUuid(s, 7), 'length');
      assert.equal(isUuid(s), false);
    }
    rejects(() => parseUuid(` ${GOOD}`), 'length');
    rejects(() => parseUuid(`{${GOOD}}`), 'length');
    rejects(() => parseUuid(`urn:uuid:${GOOD}`), 'length');
  });

  test('every wrong version: version at position 14', () => {
    for (let want = 0; want < 16; want++) {
      for (let have = 0; have < 16; have++) {
        const s = at(GOOD, 14, have.toString(16));
        if (have === want) {
          assert.equal(isUuid(s, want), true);
          continue;
        }
        rejects(() => parseUuid(s, { version: want }), 'version', 14);
        rejects(() => validateUuid(s, want), 'version', 14);
        assert.equal(isUuid(s, want), false);
        assert.equal(isUuid(s), true, 'without a version any nibble is well formed');
      }
    }
  });

  test('every non-RFC variant: variant at position 19', () => {
    for (const n of '01234567cdefCDEF') {
      const s = at(GOOD, 19, n);
      rejects(() => parseUuid(s, { version: 7 }), 'variant', 19);
      rejects(() => validateUuid(s, 7), 'variant', 19);
      assert.equal(isUuid(s, 7), false);
      assert.equal(formatUuid(parseUuid(s)), s.toLowerCase(), 'without a version it parses');
    }
    for (const n of '89abAB') assert.equal(isUuid(at(GOOD, 19, n), 7), true);
  });

  test('wrong byte-array length for uuidVersion/uuidVariant: InvalidIdError length', () => {
    for (const n of [0, 15, 17, 32]) {
      rejects(() => uuidVersion(new Uint8Array(n)), 'length');
      rejects(() => uuidVariant(new Uint8Array(n)), 'length');
    }
  });
});

describe('misuse throws TypeError/RangeError, never InvalidIdError', () => {
  test('non-string text', () => {
    for (const v of [undefined, null, 42, {}, new Uint8Array(16)]) {
      assert.throws(() => parseUuid(v as never), TypeError);
      assert.throws(() => validateUuid(v as never), TypeError);
      assert.equal(isUuid(v), false);
    }
    assert.throws(() => uuidVersion(42 as never), /uuidVersion input: expected/);
  });

  test('version outside 0-15 or not an integer', () => {
    for (const v of [-1, 16, 1.5, Number.NaN]) {
      assert.throws(() => parseUuid(GOOD, { version: v }), RangeError);
      assert.throws(() => isUuid(GOOD, v), RangeError);
    }
    assert.throws(() => parseUuid(GOOD, { version: '7' as never }), TypeError);
    assert.throws(() => parseUuid(GOOD, 7 as never), TypeError);
  });
});

describe('properties (fast-check)', () => {
  const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 });
  const mixedCase = (s: string, mask: number[]) =>
    [...s].map((c, i) => (mask[i % mask.length]! & 1 ? c.toUpperCase() : c)).join('');

  test('parseUuid(formatUuid(b)) equals b for any 16 bytes', () => {
    fc.assert(fc.property(bytes16, (b) => assert.deepEqual(parseUuid(formatUuid(b)), b)));
  });

  test('formatUuid(parseUuid(s)) is s in lower case, for any case mix', () => {
    fc.assert(
      fc.property(bytes16, fc.array(fc.nat(1), { minLength: 1 }), (b, mask) => {
        const canonical = formatUuid(b);
        const s = mixedCase(canonical, mask);
        assert.equal(formatUuid(parseUuid(s)), canonical);
        assert.equal(validateUuid(s), canonical);
        assert.equal(isUuid(s), true);
      }),
    );
  });

  test('text and byte forms agree on version and variant', () => {
    fc.assert(
      fc.property(bytes16, (b) => {
        const s = formatUuid(b);
        assert.equal(uuidVersion(s), b[6]! >> 4);
        assert.equal(uuidVersion(b), b[6]! >> 4);
        assert.equal(uuidVariant(s), uuidVariant(b));
        const v = b[6]! >> 4;
        assert.equal(isUuid(s, v), uuidVariant(b) === 'rfc9562');
      }),
    );
  });

  test('fast-check uuid() strings of every version parse with that version', () => {
    fc.assert(
      fc.property(fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8] }), (s) => {
        const v = Number.parseInt(s[14]!, 16);
        assert.equal(formatUuid(parseUuid(s, { version: v })), s);
      }),
    );
  });
});
