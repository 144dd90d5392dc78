import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { InvalidIdError } from '../../packages/idforge/src/core/errors.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import { isUuid } from '../../packages/idforge/src/core/uuid/parse.js';
import {
  fromMysqlSwap,
  mysqlSwapHex,
  toMysqlSwap,
  uuidGregorianTime,
  uuidv1Timestamp,
  uuidv6Timestamp,
  v1ToV6,
  v6ToV1,
} from '../../packages/idforge/src/core/uuid/v1v6.js';
import { MYSQL_SWAP_EXAMPLE, RFC9562_V1_V6_PAIR, RFC9562_VECTORS } from '../vectors/uuid.js';

const GREGORIAN_OFFSET_TICKS = 0x01b21dd213814000n; // RFC 9562 §5.1: 1582-10-15 → 1970-01-01
const reason = (r: string) => (e: unknown) => e instanceof InvalidIdError && e.reason === r;

/** A v1 (or v6) UUID with the given 60-bit ticks and arbitrary clock sequence and node. */
function v1From(ticks: bigint, tail: Uint8Array): string {
  const b = new Uint8Array(16);
  const lo = Number(ticks & 0xffffffffn);
  new DataView(b.buffer).setUint32(0, lo);
  b[4] = Number((ticks >> 40n) & 0xffn);
  b[5] = Number((ticks >> 32n) & 0xffn);
  b[6] = 0x10 | Number((ticks >> 56n) & 0x0fn);
  b[7] = Number((ticks >> 48n) & 0xffn);
  b.set(tail.subarray(8), 8);
  b[8] = (b[8]! & 0x3f) | 0x80;
  return formatUuid(b);
}

const ticks60 = fc.bigInt({ min: 0n, max: (1n << 60n) - 1n });
const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 });

describe('RFC 9562 §A.1 / §A.5 vectors', () => {
  for (const v of RFC9562_VECTORS.filter((x) => x.ticks !== undefined)) {
    test(`${v.source}: ticks and unix ms (2022-02-22 14:22:22 -05:00)`, () => {
      assert.deepEqual(uuidGregorianTime(v.text), { unixMs: v.unixMs, ticks: v.ticks });
      assert.deepEqual(uuidGregorianTime(v.text.toLowerCase()), {
        unixMs: v.unixMs,
        ticks: v.ticks,
      });
    });
  }

  test('the RFC pair converts both ways, in either input case', () => {
    assert.equal(v1ToV6(RFC9562_V1_V6_PAIR.v1), RFC9562_V1_V6_PAIR.v6);
    assert.equal(v6ToV1(RFC9562_V1_V6_PAIR.v6), RFC9562_V1_V6_PAIR.v1);
    assert.equal(v1ToV6(RFC9562_V1_V6_PAIR.v1.toUpperCase()), RFC9562_V1_V6_PAIR.v6);
  });
});

describe('timestamps', () => {
  test('ticks 0 is 1582-10-15, before the unix epoch', () => {
    const t = uuidGregorianTime(v1From(0n, new Uint8Array(16)));
    assert.deepEqual(t, { unixMs: -12_219_292_800_000, ticks: 0n });
    assert.equal(uuidv1Timestamp(v1From(0n, new Uint8Array(16))), -12_219_292_800_000);
    assert.equal(uuidv6Timestamp(v1ToV6(v1From(0n, new Uint8Array(16)))), -12_219_292_800_000);
    assert.equal(new Date(t.unixMs).toISOString(), '1582-10-15T00:00:00.000Z');
  });

  test('unixMs is floor(ticks / 10^4) - offset, exactly, for any 60-bit ticks (v1 and v6)', () => {
    fc.assert(
      fc.property(ticks60, bytes16, (ticks, tail) => {
        const v1 = v1From(ticks, tail);
        const unixMs = Number(ticks / 10_000n - GREGORIAN_OFFSET_TICKS / 10_000n);
        assert.deepEqual(uuidGregorianTime(v1), { unixMs, ticks });
        assert.deepEqual(uuidGregorianTime(v1ToV6(v1)), { unixMs, ticks });
      }),
    );
  });

  test('rejects other versions and variants; bytes of the wrong length', () => {
    assert.throws(() => uuidv1Timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), reason('version'));
    assert.throws(() => uuidv1Timestamp('c232ab00-9414-11ec-f3c8-9f6bdeced846'), reason('variant'));
    assert.throws(() => uuidv1Timestamp(new Uint8Array(10)), reason('length'));
    assert.throws(() => uuidv1Timestamp({} as never), TypeError);
  });
});

describe('v1 ↔ v6 (RFC 9562 §5.6)', () => {
  test('v1 → v6 → v1 is the identity; the result is a v6 with the same tail', () => {
    fc.assert(
      fc.property(ticks60, bytes16, (ticks, tail) => {
        const v1 = v1From(ticks, tail);
        const v6 = v1ToV6(v1);
        assert.ok(isUuid(v6, 6));
        assert.equal(v6.slice(19), v1.slice(19));
        assert.equal(v6ToV1(v6), v1);
      }),
    );
  });

  test('v6 sorts as its ticks do', () => {
    fc.assert(
      fc.property(ticks60, ticks60, (a, b) => {
        const tail = new Uint8Array(16);
        const [va, vb] = [v1ToV6(v1From(a, tail)), v1ToV6(v1From(b, tail))];
        assert.equal(va < vb, a < b);
      }),
    );
  });

  test('wrong input version or variant is refused', () => {
    assert.throws(() => v1ToV6(RFC9562_V1_V6_PAIR.v6), reason('version'));
    assert.throws(() => v6ToV1(RFC9562_V1_V6_PAIR.v1), reason('version'));
    assert.throws(() => v1ToV6('c232ab00-9414-11ec-13c8-9f6bdeced846'), reason('variant'));
    assert.throws(() => v6ToV1('1ec9414c-232a-6b00-d3c8-9f6bdeced846'), reason('variant'));
    assert.throws(() => v1ToV6('c232ab00941411ecb3c89f6bdeced846'), reason('length'));
  });
});

describe("MySQL's UUID_TO_BIN(u, 1) / BIN_TO_UUID(b, 1)", () => {
  test('the MySQL manual example', () => {
    assert.equal(mysqlSwapHex(MYSQL_SWAP_EXAMPLE.uuid), MYSQL_SWAP_EXAMPLE.swappedHex);
    assert.equal(
      mysqlSwapHex(MYSQL_SWAP_EXAMPLE.uuid.toUpperCase()),
      MYSQL_SWAP_EXAMPLE.swappedHex,
    );
    const bytes = toMysqlSwap(MYSQL_SWAP_EXAMPLE.uuid);
    assert.equal(Buffer.from(bytes).toString('hex'), MYSQL_SWAP_EXAMPLE.swappedHex);
    assert.equal(fromMysqlSwap(bytes), MYSQL_SWAP_EXAMPLE.uuid);
  });

  test('swapped v1 bytes sort by time, like v6 (why MySQL offers the flag)', () => {
    const v1 = RFC9562_V1_V6_PAIR.v1;
    const v6hex = RFC9562_V1_V6_PAIR.v6.replaceAll('-', '');
    // time_hi (with version) + time_mid + time_low: the RFC example's ticks, high part first.
    assert.equal(mysqlSwapHex(v1), `11ec9414c232ab00${v6hex.slice(16)}`);
  });

  test('swap → unswap is the identity for any UUID; into a buffer at an offset', () => {
    fc.assert(
      fc.property(bytes16, fc.nat(8), (b, offset) => {
        const s = formatUuid(b);
        const out = new Uint8Array(32).fill(0xee);
        assert.equal(toMysqlSwap(s, out, offset), out);
        assert.equal(fromMysqlSwap(out.slice(offset, offset + 16)), s);
        assert.equal(
          mysqlSwapHex(s),
          Buffer.from(out.subarray(offset, offset + 16)).toString('hex'),
        );
      }),
    );
  });

  test('misuse and malformed input', () => {
    assert.throws(() => fromMysqlSwap(new Uint8Array(15)), reason('length'));
    assert.throws(() => fromMysqlSwap('1026baba6ccd780c95645b8c656024db' as never), TypeError);
    assert.throws(() => toMysqlSwap('nope'), reason('length'));
    assert.throws(() => toMysqlSwap(MYSQL_SWAP_EXAMPLE.uuid, new Uint8Array(20), 5), RangeError);
  });
});
