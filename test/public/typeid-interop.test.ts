// TypeID interop with the specification's own TypeScript implementation, typeid-js (a
// devDependency), both ways: our IDs parse there to the same prefix and UUID, theirs parse
// here, the same bytes give the same text, and the two agree on which strings are TypeIDs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TypeID, typeid as theirTypeid } from 'typeid-js';
import { ManualClock, seededRandom } from '../../packages/idforge/src/core/index.js';
import {
  formatTypeId,
  isTypeId,
  parseTypeId,
  TypeIdGenerator,
  typeIdToUuid,
  uuidToTypeId,
} from '../../packages/idforge/src/public/index.js';

const prefixArb = fc.stringMatching(/^([a-z]([a-z_]{0,61}[a-z])?)?$/).filter((p) => p.length <= 63);

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('ours → typeid-js: generated IDs parse there to the same prefix and UUID', () => {
  fc.assert(
    fc.property(prefixArb, fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.integer(), (p, ms, s) => {
      const gen = new TypeIdGenerator({ clock: new ManualClock(ms), random: seededRandom(s) });
      for (const id of [gen.next(p), gen.next(p)]) {
        const theirs = TypeID.fromString(id);
        assert.equal(theirs.getType(), p);
        assert.equal(theirs.toUUID(), typeIdToUuid(id));
        assert.equal(theirs.toString(), id);
      }
    }),
    { numRuns: 500 },
  );
});

test('typeid-js → ours: their IDs parse here to their prefix and UUID', () => {
  fc.assert(
    fc.property(prefixArb, (p) => {
      const theirs = theirTypeid(p);
      const id = theirs.toString();
      const parts = parseTypeId(id);
      assert.equal(parts.prefix, p);
      assert.equal(typeIdToUuid(id), theirs.toUUID());
      assert.equal(hex(parts.bytes), hex(theirs.toUUIDBytes()));
    }),
    { numRuns: 500 },
  );
});

test('the same 16 bytes and prefix give the same text, both ways', () => {
  fc.assert(
    fc.property(prefixArb, fc.uint8Array({ minLength: 16, maxLength: 16 }), (p, bytes) => {
      const ours = formatTypeId(p, bytes);
      assert.equal(TypeID.fromUUIDBytes(p, bytes).toString(), ours);
      assert.equal(hex(TypeID.fromString(ours).toUUIDBytes()), hex(bytes));
      // typeid-js's toUUID() throws for UUIDs outside RFC 9562's versions (the uuid package
      // checks them), even the spec's valid "one": so text goes one way only, ours to theirs.
      const uuid = typeIdToUuid(ours);
      assert.equal(uuidToTypeId(uuid, p), ours);
      assert.equal(TypeID.fromUUID(p, uuid).toString(), ours);
    }),
    { numRuns: 1000 },
  );
});

function theyAccept(text: string): boolean {
  try {
    TypeID.fromString(text);
    return true;
  } catch {
    return false;
  }
}

/** A valid TypeID with one character replaced, inserted or removed. */
const nearMiss = fc
  .tuple(
    prefixArb,
    fc.uint8Array({ minLength: 16, maxLength: 16 }),
    fc.nat(),
    fc.constantFrom('_', 'A', 'z', '0', '8', 'i', 'l', 'o', 'u', '-', ' ', 'é', ''),
    fc.constantFrom('replace', 'insert', 'remove'),
  )
  .map(([p, bytes, at, ch, op]) => {
    const id = formatTypeId(p, bytes);
    const i = at % (id.length + 1);
    if (op === 'insert') return id.slice(0, i) + ch + id.slice(i);
    if (op === 'remove') return id.slice(0, i) + id.slice(i + 1);
    return id.slice(0, i) + ch + id.slice(i + 1);
  });

test('near misses of valid TypeIDs: both implementations accept exactly the same strings', () => {
  fc.assert(
    fc.property(nearMiss, (text) => {
      assert.equal(isTypeId(text), theyAccept(text), JSON.stringify(text));
      if (isTypeId(text)) {
        assert.equal(hex(parseTypeId(text).bytes), hex(TypeID.fromString(text).toUUIDBytes()));
      }
    }),
    { numRuns: 5000 },
  );
});
