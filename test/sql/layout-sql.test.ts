// The SQL counter is a signed BIGINT holding tick × 2^seqBits + sequence: a layout's time and
// sequence fields may take 62 bits together, not 63 (found by the mutation run, issue 34).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineLayout } from '../../packages/idforge/src/core/index.js';
import { layoutSql } from '../../packages/idforge/src/sql/layout-sql.js';

const layout = (timeBits: number, nodeBits: number) =>
  defineLayout({
    name: `sql-${timeBits}`,
    epoch: '2024-01-01',
    unitMs: 1,
    fields: [
      { name: 'time', bits: timeBits },
      ...(nodeBits > 0 ? [{ name: 'node', bits: nodeBits }] : []),
      { name: 'sequence', bits: 20 },
    ],
  });

test('time and sequence of 62 bits together have SQL functions', () => {
  const l = layoutSql(layout(42, 1));
  assert.equal(l.seqBits, 20);
  assert.equal(l.maxNode, 1);
});

test('63 bits are refused with the reason', () => {
  assert.throws(
    () => layoutSql(layout(43, 0)),
    (e: unknown) =>
      e instanceof RangeError && /at most 62 bits together.*got 43 \+ 20/.test(e.message),
  );
});
