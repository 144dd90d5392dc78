import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  defineLayout,
  describeLayout,
  layoutYearsLeft,
} from '../../packages/idforge/src/core/snowflake/layout.js';
import {
  getLayout,
  LAYOUTS,
  PRESET_NAMES,
} from '../../packages/idforge/src/core/snowflake/presets.js';

describe('presets', () => {
  const iso = (ms: number | undefined) =>
    ms === undefined ? undefined : new Date(ms).toISOString();
  const expected: Record<string, [string, string, string | undefined, number, number, number]> = {
    // name: epoch, horizon, negative from, max IDs/s per node, max nodes, total bits
    default: ['2025-01-01T00:00:00.000Z', '2094-09-07T15:47:35.552Z', undefined, 4096000, 1024, 63],
    'twitter-2010': [
      '2010-11-04T01:42:54.657Z',
      '2080-07-10T17:30:30.209Z',
      undefined,
      4096000,
      1024,
      63,
    ],
    discord: [
      '2015-01-01T00:00:00.000Z',
      '2154-05-15T07:35:11.104Z',
      '2084-09-06T15:47:35.552Z',
      4096000,
      1024,
      64,
    ],
    instagram: [
      '2011-08-24T21:07:01.721Z',
      '2081-04-30T12:54:37.273Z',
      '2046-06-27T17:00:49.497Z',
      1024000,
      8192,
      64,
    ],
    sonyflake: [
      '2014-09-01T00:00:00.000Z',
      '2188-11-16T03:28:58.880Z',
      undefined,
      25600,
      65536,
      63,
    ],
    // DefaultUidGenerator javadoc: "until to 2024-11-20 21:24:16" (China time)
    baidu: ['2016-05-19T16:00:00.000Z', '2024-11-20T13:24:16.000Z', undefined, 8192, 2 ** 22, 63],
    // issue 13: the gene takes 6 sequence bits (64/ms) and 2 node bits (256 nodes)
    'gene-8': ['2025-01-01T00:00:00.000Z', '2094-09-07T15:47:35.552Z', undefined, 64000, 256, 63],
  };

  test('the seven presets, in order, with their figures', () => {
    assert.deepEqual(PRESET_NAMES, Object.keys(expected));
    for (const [name, want] of Object.entries(expected)) {
      const l = getLayout(name);
      assert.deepEqual(
        [
          iso(l.epochMs),
          iso(l.horizonMs),
          iso(l.negativeMs),
          l.maxIdsPerSecondPerNode,
          l.maxNodes,
          l.totalBits,
        ],
        want,
        name,
      );
      assert.ok(l.source && l.source.length > 10, `${name} has a source`);
      assert.ok(Object.isFrozen(l));
    }
    assert.ok(Object.isFrozen(LAYOUTS) && Object.isFrozen(PRESET_NAMES));
  });

  test('field names and roles as their owners define them', () => {
    const shape = (name: string) =>
      getLayout(name).fields.map((f) => `${f.name}:${f.bits}:${f.role}`);
    assert.deepEqual(shape('twitter-2010'), [
      'time:41:time',
      'datacenter:5:node',
      'worker:5:node',
      'sequence:12:sequence',
    ]);
    assert.deepEqual(shape('discord'), [
      'time:42:time',
      'worker:5:node',
      'process:5:node',
      'increment:12:sequence',
    ]);
    assert.deepEqual(shape('instagram'), ['time:41:time', 'shard:13:node', 'sequence:10:sequence']);
    // sony/sonyflake: the sequence sits above the machine ID
    assert.deepEqual(shape('sonyflake'), [
      'time:39:time',
      'sequence:8:sequence',
      'machine:16:node',
    ]);
    assert.deepEqual(shape('gene-8'), [
      'time:41:time',
      'node:8:node',
      'sequence:6:sequence',
      'gene:8:gene',
    ]);
    assert.equal(getLayout('gene-8').geneField?.name, 'gene');
    assert.equal(getLayout('default').geneField, undefined);
    assert.equal(getLayout('sonyflake').unitMs, 10);
    assert.equal(getLayout('baidu').unitMs, 1000);
    // sony/sonyflake README: "The lifetime (174 years)"
    assert.equal(
      Math.floor(layoutYearsLeft(getLayout('sonyflake'), getLayout('sonyflake').epochMs)),
      174,
    );
  });

  test('getLayout: RangeError listing the names; TypeError for a non-string', () => {
    assert.throws(
      () => getLayout('snowflake'),
      (e: unknown) => {
        return e instanceof RangeError && /"default", "twitter-2010", .*"baidu"/.test(e.message);
      },
    );
    assert.throws(() => getLayout('toString'), RangeError);
    assert.throws(() => getLayout(7 as never), TypeError);
  });

  test('layoutYearsLeft: positive before the horizon, negative after', () => {
    const baidu = getLayout('baidu');
    assert.equal(layoutYearsLeft(baidu, baidu.horizonMs), 0);
    assert.ok(layoutYearsLeft(baidu, Date.parse('2025-11-20T13:24:16Z')) < -0.99);
    assert.ok(
      Math.abs(layoutYearsLeft(getLayout('default'), Date.parse('2025-01-01')) - 69.7) < 0.1,
    );
  });
});

describe('describeLayout and docs/layouts.md', () => {
  test('the diagram shows bit numbers, the sign bit and every field', () => {
    assert.equal(
      describeLayout(getLayout('default')),
      [
        'default: epoch 2025-01-01T00:00:00.000Z, tick 1 ms',
        ' 63  62                 22 21     12 11          0',
        '+---+---------------------+---------+-------------+',
        '| 0 |       time 41       | node 10 | sequence 12 |',
        '+---+---------------------+---------+-------------+',
      ].join('\n'),
    );
    const small = describeLayout(
      defineLayout({
        name: 'small',
        epoch: 0,
        fields: [
          { name: 'time', bits: 40 },
          { name: 'x', bits: 1 },
          { name: 'sequence', bits: 2 },
        ],
      }),
    );
    assert.match(small, /\|\s+0 \(21\)\s+\|/);
    assert.match(small, /\| x 1 \|/);
  });

  test('docs/layouts.md shows every preset diagram and horizon as the code computes them', () => {
    const doc = readFileSync(new URL('../../docs/layouts.md', import.meta.url), 'utf8');
    for (const name of PRESET_NAMES) {
      const l = getLayout(name);
      const diagram = describeLayout(l).split('\n').slice(1).join('\n');
      assert.ok(doc.includes(diagram), `${name} diagram`);
      assert.ok(doc.includes(new Date(l.horizonMs).toISOString()), `${name} horizon`);
      if (l.negativeMs !== undefined) {
        assert.ok(doc.includes(new Date(l.negativeMs).toISOString()), `${name} negative`);
      }
    }
  });
});
