// TypeID generation (idforge/public): UUIDv7s from the core's state transitions on an injected
// clock and random source, strictly increasing per generator and across prefixes, the suffix
// written straight from the state (checked against the parser and the core's uuidv7Timestamp).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ManualClock,
  seededRandom,
  uuidv7Timestamp,
} from '../../packages/idforge/src/core/index.js';
import {
  parseTypeId,
  TYPEID_ALPHABET,
  TypeIdGenerator,
  typeIdTimestamp,
  typeIdToUuid,
  typeid,
} from '../../packages/idforge/src/public/index.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('TypeIdGenerator: UUIDv7s on the injected clock, strictly increasing, prefix per call', () => {
  const clock = new ManualClock(1_700_000_000_000);
  const gen = new TypeIdGenerator({ prefix: 'user', clock, random: seededRandom(7) });
  let last = '';
  for (let i = 0; i < 5000; i++) {
    if (i % 1000 === 999) clock.advance(1);
    if (i === 3000) clock.advance(-5); // a small step back keeps the last time (RFC 9562 §6.2)
    const id = gen.next();
    assert.match(id, /^user_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    assert.ok(id > last, `${id} > ${last}`);
    const uuid = typeIdToUuid(id);
    assert.equal(uuid[14], '7');
    assert.match(uuid[19]!, /[89ab]/);
    assert.equal(typeIdTimestamp(id), uuidv7Timestamp(uuid));
    last = id;
  }
  assert.equal(typeIdTimestamp(last), 1_700_000_000_003);
  const other = gen.next('org');
  assert.ok(other.startsWith('org_'));
  assert.ok(other.slice(4) > last.slice(5), 'one state across prefixes');
  assert.ok(gen.next('').length === 26);
  const bytes = gen.nextBytes();
  const after = gen.next();
  assert.ok(parseTypeId(after).bytes.join() !== bytes.join());
  assert.ok(hex(parseTypeId(after).bytes) > hex(bytes), 'nextBytes shares the state');
  assert.equal(uuidv7Timestamp(bytes), 1_700_000_000_003);
});

test('TypeIdGenerator: the same seed gives the same IDs; a bad prefix changes no state', () => {
  const make = () =>
    new TypeIdGenerator({
      clock: new ManualClock(1e12),
      random: seededRandom(3),
      method: 'random',
    });
  const a = make();
  const b = make();
  assert.throws(() => a.next('Bad'), RangeError);
  for (let i = 0; i < 100; i++) assert.equal(a.next('x'), b.next('x'));
  const out = new Uint8Array(20);
  assert.equal(a.nextBytes(out, 4), out);
  assert.throws(() => a.nextBytes(out, 5), RangeError);
});

test('TypeIdGenerator options are checked', () => {
  assert.throws(() => new TypeIdGenerator(null as unknown as object), TypeError);
  assert.throws(() => new TypeIdGenerator({ method: 'v4' as 'counter' }), RangeError);
  assert.throws(() => new TypeIdGenerator({ clock: {} as ManualClock }), TypeError);
  assert.throws(
    () => new TypeIdGenerator({ random: {} as ReturnType<typeof seededRandom> }),
    TypeError,
  );
  assert.throws(() => new TypeIdGenerator({ prefix: 5 as unknown as string }), TypeError);
  assert.equal(new TypeIdGenerator().prefix, '');
  assert.equal(new TypeIdGenerator({ method: 'fraction' }).method, 'fraction');
});

test('typeid(): the one process-wide generator, any prefix', () => {
  const ids = [typeid('user'), typeid('user'), typeid(), typeid('org')];
  assert.match(ids[0]!, /^user_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
  assert.ok(ids[1]! > ids[0]!);
  assert.match(ids[2]!, /^[0-7][0-9a-hjkmnp-tv-z]{25}$/);
  assert.ok(Math.abs(typeIdTimestamp(ids[3]!) - Date.now()) < 60_000);
  for (const ch of ids
    .join('')
    .replaceAll('_', '')
    .replace(/user|org/g, '')) {
    assert.ok(TYPEID_ALPHABET.includes(ch), ch);
  }
});
