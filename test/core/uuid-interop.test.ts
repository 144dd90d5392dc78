// Peers as oracles, both ways: IDs made by `uuid` (uuidjs, v14) and `uuidv7`
// (LiosK) parse and decode in idforge exactly as their makers say, and idforge's IDs pass
// their validators and decode the same there.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import * as uuidjs from 'uuid';
import {
  UUID as LiosUuid,
  V7Generator as LiosV7,
  uuidv4 as liosV4,
  uuidv7 as liosV7,
} from 'uuidv7';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import {
  isUuid,
  parseUuid,
  uuidVariant,
  uuidVersion,
  validateUuid,
} from '../../packages/idforge/src/core/uuid/parse.js';
import { uuidGregorianTime, v1ToV6, v6ToV1 } from '../../packages/idforge/src/core/uuid/v1v6.js';
import { UuidV4Generator, uuidv4, uuidv4Bytes } from '../../packages/idforge/src/core/uuid/v4.js';
import {
  UuidV7Generator,
  uuidv7,
  uuidv7Timestamp,
} from '../../packages/idforge/src/core/uuid/v7.js';

const RUNS = 300;
const msecs = fc.integer({ min: 0, max: 2 ** 48 - 1 });
const gregorianMs = fc.integer({ min: -12_219_292_800_000, max: 2 ** 40 }); // fits v1's 60 bits
const bytes16 = fc.uint8Array({ minLength: 16, maxLength: 16 });

function ours(): string[] {
  const out: string[] = [
    uuidv4(),
    formatUuid(uuidv4Bytes()),
    new UuidV4Generator().next(),
    uuidv7(),
  ];
  for (const method of ['counter', 'fraction', 'random'] as const) {
    const g = new UuidV7Generator({ method });
    out.push(g.next(), formatUuid(g.nextBytes()));
  }
  return out;
}

describe('uuid (uuidjs) → idforge', () => {
  test('v4 and v7: version, variant, bytes; v7 timestamp equals the msecs given', () => {
    fc.assert(
      fc.property(msecs, bytes16, (ms, random) => {
        for (const s of [uuidjs.v4(), uuidjs.v7(), uuidjs.v7({ msecs: ms, random })]) {
          const v = Number(s[14]);
          assert.deepEqual(parseUuid(s, { version: v }), uuidjs.parse(s));
          assert.equal(uuidVersion(s), uuidjs.version(s));
          assert.equal(uuidVariant(s), 'rfc9562');
        }
        assert.equal(uuidv7Timestamp(uuidjs.v7({ msecs: ms, random })), ms);
      }),
      { numRuns: RUNS },
    );
  });

  test('v1 and v6: timestamp ticks = (msecs + offset) × 10^4 + nsecs; conversions agree', () => {
    fc.assert(
      fc.property(gregorianMs, fc.integer({ min: 0, max: 9999 }), bytes16, (ms, nsecs, random) => {
        const v1 = uuidjs.v1({ msecs: ms, nsecs, random });
        const v6 = uuidjs.v6({ msecs: ms, nsecs, random });
        const ticks = (BigInt(ms) + 12_219_292_800_000n) * 10_000n + BigInt(nsecs);
        assert.deepEqual(uuidGregorianTime(v1), { unixMs: ms, ticks });
        assert.deepEqual(uuidGregorianTime(v6), { unixMs: ms, ticks });
        assert.equal(v1ToV6(v1), uuidjs.v1ToV6(v1));
        assert.equal(v6ToV1(uuidjs.v1ToV6(v1)), v1);
        assert.equal(uuidjs.v6ToV1(v1ToV6(v1)), v1);
      }),
      { numRuns: RUNS },
    );
  });

  test('parse and stringify agree with ours on every UUID uuidjs accepts (versions 1-8)', () => {
    fc.assert(
      fc.property(bytes16, fc.integer({ min: 1, max: 8 }), (b, v) => {
        b[6] = (v << 4) | (b[6]! & 0x0f);
        b[8] = 0x80 | (b[8]! & 0x3f);
        assert.equal(uuidjs.stringify(b), formatUuid(b));
        assert.deepEqual(parseUuid(formatUuid(b), { version: v }), uuidjs.parse(formatUuid(b)));
      }),
    );
  });

  test('their NIL and MAX are ours too', () => {
    assert.equal(validateUuid(uuidjs.NIL), uuidjs.NIL);
    assert.equal(validateUuid(uuidjs.MAX), uuidjs.MAX);
  });
});

describe('idforge → uuid (uuidjs)', () => {
  test('our v4 and v7 (every method) pass validate() and report the same version', () => {
    for (let i = 0; i < 200; i++) {
      for (const s of ours()) {
        assert.ok(uuidjs.validate(s), s);
        assert.equal(uuidjs.version(s), uuidVersion(s));
        assert.equal(uuidjs.stringify(parseUuid(s)), s);
      }
    }
  });

  test('our v6 from their v1 passes validate() as version 6', () => {
    const v6 = v1ToV6(uuidjs.v1());
    assert.ok(uuidjs.validate(v6));
    assert.equal(uuidjs.version(v6), 6);
  });
});

describe('uuidv7 (LiosK) ↔ idforge', () => {
  test('their v7 decode in idforge: version, variant, timestamp from their own fields', () => {
    fc.assert(
      fc.property(msecs, (ms) => {
        // A fresh generator each time: theirs, like ours, keeps its last ms on a step back.
        const theirs = new LiosV7().generateOrResetWithTs(ms);
        const s = theirs.toString();
        assert.equal(uuidv7Timestamp(s), ms);
        assert.deepEqual(parseUuid(s, { version: 7 }), Uint8Array.from(theirs.bytes));
        assert.ok(isUuid(liosV7(), 7));
        assert.ok(isUuid(liosV4(), 4));
      }),
      { numRuns: RUNS },
    );
  });

  test('ours parse in uuidv7 with the same bytes, version 7/4, variant VAR_10', () => {
    for (let i = 0; i < 200; i++) {
      for (const s of ours()) {
        const theirs = LiosUuid.parse(s);
        assert.deepEqual(Uint8Array.from(theirs.bytes), parseUuid(s));
        assert.equal(theirs.getVariant(), 'VAR_10');
        assert.equal(theirs.getVersion(), uuidVersion(s));
        assert.equal(theirs.toString(), s);
      }
    }
  });

  test('their compareTo orders our v7 the same as string comparison', () => {
    const g = new UuidV7Generator({ clock: new ManualClock(1_700_000_000_000) });
    let prev = LiosUuid.parse(g.next());
    for (let i = 0; i < 10_000; i++) {
      const cur = LiosUuid.parse(g.next());
      assert.equal(prev.compareTo(cur), -1);
      prev = cur;
    }
  });
});
