// Business-number formats (idforge/sequences' number-format.ts) and the formatted segment
// sequence over a real SQLite segment store: periods in a named time zone, the refusals that
// keep formatted numbers unique, each period its own tag created once by racing nodes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  defineNumberFormat,
  describeFormat,
  FormattedSequence,
  formatOfDescription,
  segmentSource,
} from '../../packages/idforge/src/sequences/index.js';
import { openSqliteSegmentStore } from '../../packages/stores/src/sqlite/segment-store.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-numfmt-');

/** Istanbul (UTC+3): its 2027 begins at 2026-12-31T21:00Z. */
const NEW_YEAR = Date.UTC(2026, 11, 31, 21);

test('periods and text in the named time zone, across a boundary', () => {
  const f = defineNumberFormat('INV-{yyyy}-{mm}-{n:6}', {
    reset: 'monthly',
    timeZone: 'Europe/Istanbul',
  });
  const before = f.periodAt(NEW_YEAR - 1);
  const at = f.periodAt(NEW_YEAR);
  assert.equal(before.key, '2026-12');
  assert.equal(at.key, '2027-01');
  assert.equal(f.format(42n, before), 'INV-2026-12-000042');
  assert.equal(f.format(1234567n, at), 'INV-2027-01-1234567', 'wider than the padding: grows');
  assert.equal(f.periodTag('invoices', at), 'invoices:2027-01');
  const utc = defineNumberFormat('{yyyy}{mm}{dd}-{n36:4}', { reset: 'daily' });
  assert.equal(utc.periodAt(NEW_YEAR).key, '2026-12-31', 'UTC is still in 2026');
  assert.equal(utc.format(46655n, utc.periodAt(NEW_YEAR)), '20261231-0ZZZ');
  const never = defineNumberFormat('{prefix}{n:8}', { prefix: 'ORD-' });
  assert.equal(never.periodTag('orders', never.periodAt(NEW_YEAR)), 'orders');
  assert.equal(never.format(7n, never.periodAt(0)), 'ORD-00000007');
});

test('a format that would print two periods alike, or cannot be read, is refused', () => {
  const refused: [string, object, RegExp][] = [
    ['INV-{n:6}', { reset: 'monthly' }, /\{yyyy\}, \{mm\} in a pattern that resets monthly/],
    ['INV-{yyyy}-{n:6}', { reset: 'daily' }, /\{mm\}, \{dd\}/],
    ['INV-{mm}-{n}', { reset: 'yearly' }, /\{yyyy\}/],
    ['INV-{yyyy}', {}, /exactly one number token/],
    ['{n}{n}', {}, /exactly one number token/],
    ['{n:0}', {}, /W in 1\.\.19/],
    ['{week}{n}', {}, /pattern token: expected yyyy, mm/],
    ['a}{n}', {}, /braces only around a token/],
    ['{prefix}{n}', {}, /prefix: expected a prefix/],
    ['{n}', { prefix: 'X' }, /a pattern holding \{prefix\}/],
    ['{n}', { reset: 'weekly' }, /reset: expected never, daily, monthly, yearly/],
    ['{n}', { timeZone: 'Mars/Olympus' }, /timeZone: expected an IANA time zone/],
    ['', {}, /1 to 100 printable characters/],
  ];
  for (const [pattern, options, message] of refused) {
    assert.throws(() => defineNumberFormat(pattern, options), { name: 'RangeError', message });
  }
  assert.throws(() => defineNumberFormat(5 as unknown as string), TypeError);
});

test('the stored description gives the same format back; a plain one gives null', () => {
  const f = defineNumberFormat('INV-{yyyy}-{mm}-{n:6}', {
    reset: 'monthly',
    timeZone: 'Asia/Tokyo',
  });
  const g = formatOfDescription(describeFormat(f, 'invoices of the shop'))!;
  assert.deepEqual([g.pattern, g.reset, g.timeZone], [f.pattern, f.reset, f.timeZone]);
  assert.equal(formatOfDescription('orders'), null);
  assert.throws(() => formatOfDescription('idforge-format:{'), RangeError);
});

test('two nodes a second apart: each period its own tag, created once, numbers never repeat', async () => {
  const url = `sqlite:${join(dir, 'seq.db')}`;
  const store = await openSqliteSegmentStore(url);
  await store.migrate();
  const format = defineNumberFormat('INV-{yyyy}-{mm}-{n:6}', {
    reset: 'monthly',
    timeZone: 'Europe/Istanbul',
  });
  await store.createTag('invoices', { step: 10, description: describeFormat(format) });
  let now = NEW_YEAR - 2000;
  const node = (skewMs: number) =>
    new FormattedSequence(segmentSource(store), 'invoices', format, {
      clock: { now: () => now + skewMs },
    });
  const a = node(0);
  const b = node(-1000); // its clock runs a second behind
  const texts: string[] = [];
  for (let i = 0; i < 30; i++) {
    const [x, y] = await Promise.all([a.next(), b.nextBatch(2)]);
    texts.push(x.text, ...y.texts);
    now += 100;
  }
  a.close();
  b.close();
  assert.equal(new Set(texts).size, texts.length, 'no formatted number twice');
  assert.ok(texts.includes('INV-2026-12-000001') && texts.includes('INV-2027-01-000001'));
  // b (behind) still took December numbers after a had moved to January.
  const aJan = texts.findIndex((t) => t.startsWith('INV-2027'));
  assert.ok(texts.slice(aJan).some((t) => t.startsWith('INV-2026-12')));
  // A call still drawing from December when the node's clock passes into January gets its
  // numbers: the period before stays open until the one after it.
  now = NEW_YEAR - 10;
  const c = node(0);
  const december = c.nextBatch(45); // several segments of 10: it waits on the store
  now = NEW_YEAR + 10;
  const [dec, jan] = await Promise.all([december, c.next()]);
  assert.equal(dec.period, '2026-12');
  assert.equal(dec.texts.length, 45);
  assert.equal(jan.period, '2027-01');
  texts.push(...dec.texts, jan.text);
  assert.equal(new Set(texts).size, texts.length, 'still no formatted number twice');
  c.close();
  const tags = (await store.listTags()).map((t) => t.tag);
  assert.deepEqual(tags, ['invoices', 'invoices:2026-12', 'invoices:2027-01']);
  await store.close();
});
