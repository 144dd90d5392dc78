// What a sequence store keeps is asked of the backend registry (issue 35: no scheme names
// compared outside the stores): segment tables where a backend opens segments, bare counters
// (which take durable marks) where it opens counters only, nothing otherwise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backends, sequenceKind, sequenceKindForms } from '../../packages/stores/src/index.js';

test('each registered backend keeps the kind of sequence its openers say', () => {
  const kinds = Object.fromEntries(backends().map((b) => [b.name, sequenceKind(b.name)]));
  assert.deepEqual(kinds, {
    sqlite: 'segments',
    file: null,
    postgres: 'segments',
    mysql: 'segments',
    redis: 'counters',
    etcd: null,
    leveldb: null,
  });
  for (const b of backends()) {
    const kind = sequenceKind(b.name);
    if (b.open.segments !== undefined) assert.equal(kind, 'segments', b.name);
    else if (b.open.counters !== undefined) assert.equal(kind, 'counters', b.name);
    else assert.equal(kind, null, b.name);
  }
});

test('an unknown scheme, or an alias not folded by storeScheme, keeps none', () => {
  assert.equal(sequenceKind('bogus'), null);
  assert.equal(sequenceKind('postgresql'), null);
});

test('the URL forms of each kind, in registry order, for messages', () => {
  assert.equal(sequenceKindForms('segments'), 'sqlite:, postgres://, mysql://');
  assert.equal(sequenceKindForms('counters'), 'redis://');
});
