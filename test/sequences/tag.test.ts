// One rule for a sequence's tag (sequences/tag.ts), applied alike by the stores and the CLI.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import {
  assertTag,
  MAX_SEQUENCE_VALUE,
  MAX_TAG_LENGTH,
} from '../../packages/idforge/src/sequences/index.js';
import { run } from '../../packages/server/src/cli/index.js';
import {
  RedisCounterStore,
  SqliteMarkStore,
  SqliteSegmentStore,
} from '../../packages/stores/src/index.js';
import { ticketTable } from '../../packages/stores/src/ticket-common.js';

const GOOD = [
  'a',
  'orders',
  'Orders',
  'a b',
  ' a',
  'a ',
  'tag:1/2',
  'é',
  '注文',
  '😀',
  'x'.repeat(128),
];
const BAD: unknown[] = [
  '',
  'x'.repeat(129),
  'a\nb',
  'a\tb',
  '\u0000',
  '\u007f',
  '\u0085',
  '\ud800',
];

test('MAX_SEQUENCE_VALUE is 2^63 - 1 and a tag is at most 128 characters', () => {
  assert.equal(MAX_SEQUENCE_VALUE, 9223372036854775807n);
  assert.equal(MAX_TAG_LENGTH, 128);
});

test('assertTag accepts printable tags, spaces anywhere included, and refuses the rest', () => {
  for (const tag of GOOD) assert.equal(assertTag(tag), tag);
  for (const tag of BAD) {
    assert.throws(() => assertTag(tag as string), RangeError, JSON.stringify(tag));
  }
  assert.throws(() => assertTag(7 as unknown as string), TypeError);
});

test('the stores apply the same rule (segment, mark, counter) and tickets add their own', async () => {
  const db = new Database(':memory:');
  const segments = new SqliteSegmentStore({ database: db });
  const marks = new SqliteMarkStore({ database: db });
  const client = new Redis({ lazyConnect: true, stringNumbers: true });
  const counter = new RedisCounterStore({ client });
  try {
    await segments.migrate();
    await marks.migrate();
    for (const tag of GOOD) {
      assert.equal((await segments.createTag(tag, { step: 10 })).tag, tag);
      assert.equal(await marks.raise(tag, 5n), 5n);
      assert.ok(counter.keyOf(tag).endsWith(`counter:${tag}`));
    }
    for (const tag of BAD) {
      const same = messageOf(() => assertTag(tag as string));
      await assert.rejects(segments.createTag(tag as string, { step: 10 }), { message: same });
      await assert.rejects(marks.raise(tag as string, 1n), { message: same });
      assert.throws(() => counter.keyOf(tag as string), { message: same });
      assert.throws(() => ticketTable(tag as string), RangeError);
    }
    assert.throws(() => ticketTable('a b'), /ticket tag: expected \[a-z\]/);
  } finally {
    client.disconnect();
    db.close();
  }
});

test('the CLI refuses a tag by the same rule, in its own words', async () => {
  let err = '';
  const io = {
    stdout: { write: () => true },
    stderr: {
      write: (s: string) => {
        err += s;
        return true;
      },
    },
    stdin: process.stdin,
    env: {},
  };
  const code = await run(['seq', 'next', 'a\tb', '--store', 'sqlite::memory:'], io as never);
  assert.equal(code, 2);
  assert.match(err, /seq next: tag: expected 1 to 128 printable characters/);
});

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a throw');
}
