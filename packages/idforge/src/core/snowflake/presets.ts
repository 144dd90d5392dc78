/**
 * The layout presets, each exactly as its owner defines it and with its source.
 *
 * Presets are wire formats: once released, a preset NEVER changes (not its epoch, widths,
 * order, tick or field names). A different layout is a new name. Bit 63 is the most
 * significant; "0" marks the reserved sign bit.
 */
import { assertOneOf } from '../assert.js';
import { defineLayout, type Layout } from './layout.js';

/**
 * `default`: idforge's own layout, the classic 41/10/12 split from 2025-01-01T00:00:00Z.
 * ```
 *  63  62                 22 21     12 11          0
 * +---+---------------------+---------+-------------+
 * | 0 |       time 41       | node 10 | sequence 12 |
 * +---+---------------------+---------+-------------+
 * ```
 */
const defaultLayout = /* @__PURE__ */ defineLayout({
  name: 'default',
  epoch: '2025-01-01T00:00:00Z',
  fields: [
    { name: 'time', bits: 41 },
    { name: 'node', bits: 10 },
    { name: 'sequence', bits: 12 },
  ],
  source: 'idforge (41/10/12 as in Twitter Snowflake, epoch 2025-01-01T00:00:00Z)',
  description: 'idforge default: 1,024 nodes, 4,096 IDs per ms per node, until 2094',
});

/**
 * `twitter-2010`: Twitter's original Snowflake (IdWorker.scala, tag snowflake-2010).
 * ```
 *  63  62                 22 21          17 16      12 11          0
 * +---+---------------------+--------------+----------+-------------+
 * | 0 |       time 41       | datacenter 5 | worker 5 | sequence 12 |
 * +---+---------------------+--------------+----------+-------------+
 * ```
 */
const twitter = /* @__PURE__ */ defineLayout({
  name: 'twitter-2010',
  epoch: 1288834974657,
  fields: [
    { name: 'time', bits: 41 },
    { name: 'datacenter', bits: 5 },
    { name: 'worker', bits: 5 },
    { name: 'sequence', bits: 12 },
  ],
  source:
    'twitter-archive/snowflake (tag snowflake-2010) src/main/scala/com/twitter/service/snowflake/IdWorker.scala: twepoch = 1288834974657L',
  description:
    'Twitter Snowflake 2010: 41-bit ms time, 5-bit datacenter, 5-bit worker, 12-bit sequence',
});

/**
 * `discord`: Discord's snowflakes, unsigned 64-bit (no sign bit: 42 time bits).
 * ```
 *  63                 22 21      17 16       12 11           0
 * +---------------------+----------+-----------+--------------+
 * |       time 42       | worker 5 | process 5 | increment 12 |
 * +---------------------+----------+-----------+--------------+
 * ```
 */
const discord = /* @__PURE__ */ defineLayout({
  name: 'discord',
  epoch: 1420070400000,
  signBit: false,
  fields: [
    { name: 'time', bits: 42 },
    { name: 'worker', bits: 5 },
    { name: 'process', bits: 5 },
    { name: 'increment', bits: 12, role: 'sequence' },
  ],
  source:
    'Discord developer docs, Reference > Snowflakes (discord.com/developers/docs/reference#snowflakes)',
  description:
    'Discord: ms since 2015-01-01, internal worker and process IDs, per-process increment',
});

/**
 * `instagram`: Instagram's PL/pgSQL `next_id()`, all 64 bits (no sign bit reserved).
 * ```
 *  63                 23 22      10 9           0
 * +---------------------+----------+-------------+
 * |       time 41       | shard 13 | sequence 10 |
 * +---------------------+----------+-------------+
 * ```
 */
const instagram = /* @__PURE__ */ defineLayout({
  name: 'instagram',
  epoch: 1314220021721,
  signBit: false,
  fields: [
    { name: 'time', bits: 41 },
    { name: 'shard', bits: 13 },
    { name: 'sequence', bits: 10 },
  ],
  source:
    'Instagram Engineering, "Sharding & IDs at Instagram" (2011): insta5.next_id(), our_epoch := 1314220021721',
  description: 'Instagram: ms time, 13-bit logical shard, sequence modulo 1024',
});

/**
 * `sonyflake`: sony/sonyflake's defaults, 10 ms ticks; the sequence sits ABOVE the machine.
 * ```
 *  63  62                24 23        16 15         0
 * +---+--------------------+------------+------------+
 * | 0 |      time 39       | sequence 8 | machine 16 |
 * +---+--------------------+------------+------------+
 * ```
 */
const sonyflake = /* @__PURE__ */ defineLayout({
  name: 'sonyflake',
  epoch: '2014-09-01T00:00:00Z',
  unitMs: 10,
  fields: [
    { name: 'time', bits: 39 },
    { name: 'sequence', bits: 8 },
    { name: 'machine', bits: 16 },
  ],
  source:
    'sony/sonyflake sonyflake.go: BitLenTime 39, BitLenSequence 8, BitLenMachineID 16, 10 ms units, StartTime default 2014-09-01 00:00:00 UTC',
  description: 'Sonyflake: 10 ms ticks for 174 years, 65,536 machines, 256 IDs per tick',
});

/**
 * `baidu`: baidu/uid-generator's DefaultUidGenerator defaults, 1 s ticks from 2016-05-20
 * 00:00 China time (epochStr "2016-05-20", ms 1463673600000). Its horizon passed on
 * 2024-11-20T13:24:16Z: generating with it throws; decoding old IDs still works.
 * ```
 *  63  62          35 34       13 12          0
 * +---+--------------+-----------+-------------+
 * | 0 |   time 28    | worker 22 | sequence 13 |
 * +---+--------------+-----------+-------------+
 * ```
 */
const baidu = /* @__PURE__ */ defineLayout({
  name: 'baidu',
  epoch: '2016-05-20T00:00:00+08:00',
  unitMs: 1000,
  fields: [
    { name: 'time', bits: 28 },
    { name: 'worker', bits: 22 },
    { name: 'sequence', bits: 13 },
  ],
  source:
    'baidu/uid-generator src/main/java/com/baidu/fsg/uid/impl/DefaultUidGenerator.java: timeBits 28, workerBits 22, seqBits 13, epochStr "2016-05-20" (1463673600000)',
  description: 'Baidu UidGenerator default: delta seconds, 22-bit worker, 8,192 IDs per second',
});

/**
 * `gene-8`: idforge's layout for shard genes: `default`'s epoch and 41 time bits, with the low
 * 8 bits a per-ID gene (docs/layouts.md, "Shard genes"). The gene's 8 bits come from the
 * sequence (12 → 6 bits: 64 IDs per ms per node) and the node (10 → 8 bits: 256 nodes).
 * ```
 *  63  62                 22 21    14 13         8 7      0
 * +---+---------------------+--------+------------+--------+
 * | 0 |       time 41       | node 8 | sequence 6 | gene 8 |
 * +---+---------------------+--------+------------+--------+
 * ```
 */
const gene8 = /* @__PURE__ */ defineLayout({
  name: 'gene-8',
  epoch: '2025-01-01T00:00:00Z',
  fields: [
    { name: 'time', bits: 41 },
    { name: 'node', bits: 8 },
    { name: 'sequence', bits: 6 },
    { name: 'gene', bits: 8, role: 'gene' },
  ],
  source:
    'idforge (issue 13; the gene method: an ID carries the low bits of its parent ID so both route to one shard)',
  description:
    'idforge with shard genes: 256 shards by the low 8 bits, 256 nodes, 64 IDs per ms per node, until 2094',
});

/** Every preset by name. Frozen; presets never change once released. */
export const LAYOUTS: Readonly<Record<string, Layout>> = /* @__PURE__ */ Object.freeze({
  default: defaultLayout,
  'twitter-2010': twitter,
  discord,
  instagram,
  sonyflake,
  baidu,
  'gene-8': gene8,
});

/** The preset names, in the order of {@link LAYOUTS}. */
export const PRESET_NAMES: readonly string[] = /* @__PURE__ */ Object.freeze(Object.keys(LAYOUTS));

/**
 * The preset named `name`. Throws `RangeError` listing the known names when there is none,
 * `TypeError` when `name` is not a string. Pure.
 */
export function getLayout(name: string): Layout {
  return LAYOUTS[assertOneOf('layout', name, PRESET_NAMES)]!;
}
