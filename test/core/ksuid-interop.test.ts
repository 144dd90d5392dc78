// The `ksuid` npm package (novemberborn/ksuid v3, CommonJS) as an oracle, both ways: its
// KSUIDs parse and decode identically in idforge, and idforge's in it.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import {
  composeKsuid,
  decomposeKsuid,
  formatKsuid,
  isKsuid,
  KSUID_EPOCH_SECONDS,
  KSUID_MAX,
  KSUID_MAX_UNIX_SECONDS,
  KSUID_NIL,
  KsuidGenerator,
  ksuid,
  parseKsuid,
} from '../../packages/idforge/src/core/ksuid.js';
import { seededRandom } from '../../packages/idforge/src/core/random.js';

interface PeerKsuid {
  readonly string: string;
  readonly raw: Buffer;
  readonly timestamp: number;
  readonly date: Date;
  readonly payload: Buffer;
}
interface PeerKsuidClass {
  new (buffer: Buffer): PeerKsuid;
  randomSync(time?: number | Date): PeerKsuid;
  fromParts(timeInMs: number, payload: Buffer): PeerKsuid;
  parse(text: string): PeerKsuid;
  readonly MAX_STRING_ENCODED: string;
  readonly MIN_STRING_ENCODED: string;
}
const KSUID = createRequire(import.meta.url)('ksuid') as PeerKsuidClass;

const seconds = fc.integer({ min: KSUID_EPOCH_SECONDS, max: KSUID_MAX_UNIX_SECONDS });
const payload = fc.uint8Array({ minLength: 16, maxLength: 16 });

test('the peer agrees on Nil and Max', () => {
  assert.equal(KSUID.MIN_STRING_ENCODED, KSUID_NIL);
  assert.equal(KSUID.MAX_STRING_ENCODED, KSUID_MAX);
});

test('theirs -> ours: randomSync and fromParts KSUIDs parse to the same bytes, time, payload', () => {
  fc.assert(
    fc.property(seconds, payload, (s, p) => {
      for (const theirs of [
        KSUID.fromParts(s * 1000, Buffer.from(p)),
        KSUID.randomSync(s * 1000),
      ]) {
        const ours = decomposeKsuid(theirs.string);
        assert.ok(isKsuid(theirs.string));
        assert.deepEqual(ours.bytes, new Uint8Array(theirs.raw));
        assert.equal(ours.timestamp, theirs.timestamp);
        assert.equal(ours.unixMs, theirs.date.getTime());
        assert.deepEqual(ours.payload, new Uint8Array(theirs.payload));
      }
    }),
    { numRuns: 1000 },
  );
  const now = KSUID.randomSync();
  assert.equal(decomposeKsuid(now.string).timestamp, now.timestamp);
});

test('ours -> theirs: generated and composed KSUIDs parse to the same bytes, time, payload', () => {
  fc.assert(
    fc.property(seconds, payload, (s, p) => {
      const gen = new KsuidGenerator({ clock: new ManualClock(s * 1000), random: seededRandom(s) });
      for (const text of [composeKsuid(s, p), gen.next()]) {
        const theirs = KSUID.parse(text);
        const ours = decomposeKsuid(text);
        assert.equal(theirs.string, text);
        assert.equal(theirs.timestamp, ours.timestamp);
        assert.equal(theirs.date.getTime(), s * 1000);
        assert.deepEqual(new Uint8Array(theirs.payload), ours.payload);
      }
    }),
    { numRuns: 1000 },
  );
  for (let i = 0; i < 100; i++) {
    const text = ksuid();
    assert.deepEqual(new Uint8Array(KSUID.parse(text).raw), parseKsuid(text));
  }
});

test('any 20 bytes: our text equals the peer constructor string, and parse inverts both', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (b) => {
      const text = formatKsuid(b);
      assert.equal(new KSUID(Buffer.from(b)).string, text);
      assert.deepEqual(new Uint8Array(KSUID.parse(text).raw), b);
    }),
    { numRuns: 3000 },
  );
});
