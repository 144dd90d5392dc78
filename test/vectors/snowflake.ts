/**
 * Snowflake test vectors with provenance. Each names where the ID and its decoding come from
 * and whether the decoding is published or derived from the owner's definition.
 * Retrieved 2025 from stored copies of the public sources named.
 */

export interface SnowflakeVector {
  /** Where it comes from: document, section, and what is published there. */
  readonly source: string;
  readonly layout: string;
  readonly id: string;
  /** The decoded time in unix ms (exact, or to `timePrecisionMs` when the source is coarser). */
  readonly unixMs: number;
  readonly timePrecisionMs: number;
  /** Every non-time field, by name. */
  readonly fields: Readonly<Record<string, number>>;
  /** The raw time field, when the source gives it. */
  readonly tick?: number;
}

export const snowflakeVectors: readonly SnowflakeVector[] = [
  {
    source:
      'Discord developer docs, Reference > Snowflakes, "Snowflake ID Broken Down in Binary": ' +
      '175928847299117063 = 2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment 7',
    layout: 'discord',
    id: '175928847299117063',
    unixMs: Date.parse('2016-04-30T11:18:25.796Z'),
    timePrecisionMs: 1,
    fields: { worker: 1, process: 0, increment: 7 },
  },
  {
    source:
      'Twitter developer docs, Tweet object (API v1.1 data dictionary) example: ' +
      '"created_at": "Wed Oct 10 20:19:24 +0000 2018", "id_str": "1050118621198921728". ' +
      'The time is published to the second; the datacenter/worker/sequence values are derived ' +
      'from IdWorker.scala (twitter-archive/snowflake, tag snowflake-2010), not published.',
    layout: 'twitter-2010',
    id: '1050118621198921728',
    unixMs: Date.parse('2018-10-10T20:19:24Z'),
    timePrecisionMs: 1000,
    fields: { datacenter: 10, worker: 27, sequence: 0 },
  },
  {
    source:
      'Instagram Engineering, "Sharding & IDs at Instagram" (2011), worked example: ' +
      'id = 1387263000 << (64-41); id |= 1341 << (64-41-13) (user 31341 % 2000 shards); ' +
      'id |= 5001 % 1024. The post gives the construction, not the decimal; the value below is ' +
      'its result. (Its prose says "September 9th 2011 since January 1st 2011", which is not ' +
      '1387263000 ms; only the tick is used.)',
    layout: 'instagram',
    id: '11637205501278089',
    tick: 1387263000,
    unixMs: 1314220021721 + 1387263000,
    timePrecisionMs: 1,
    fields: { shard: 1341, sequence: 905 },
  },
  {
    source:
      'Stack Overflow question 63683015 "Instagram media ID to timestamp conversion": media ID ' +
      '2384288897814875714 posted at 2020-08-26T13:43:27Z (to the second, as stated by the ' +
      'asker); shard and sequence derived from the layout.',
    layout: 'instagram',
    id: '2384288897814875714',
    unixMs: Date.parse('2020-08-26T13:43:27Z'),
    timePrecisionMs: 1000,
    fields: { shard: 2675, sequence: 578 },
  },
  {
    source:
      'Derived (no published ID found) from sony/sonyflake sonyflake.go toID(): ' +
      'elapsedTime << (BitLenSequence + BitLenMachineID) | sequence << BitLenMachineID | ' +
      'machineID, with elapsed 1 (10 ms after 2014-09-01 00:00:00 UTC), sequence 2, machine 3.',
    layout: 'sonyflake',
    id: String((1n << 24n) | (2n << 16n) | 3n),
    tick: 1,
    unixMs: Date.parse('2014-09-01T00:00:00.010Z'),
    timePrecisionMs: 1,
    fields: { sequence: 2, machine: 3 },
  },
  {
    source:
      'Derived from baidu/uid-generator DefaultUidGenerator.java: the largest ID, delta seconds ' +
      '2^28-1 (its javadoc: "Supports about 8.7 years until to 2024-11-20 21:24:16", China ' +
      'time, so the last second is 21:24:15 +08:00), worker 2^22-1, sequence 2^13-1.',
    layout: 'baidu',
    id: String((1n << 63n) - 1n),
    tick: 2 ** 28 - 1,
    unixMs: Date.parse('2024-11-20T21:24:15+08:00'),
    timePrecisionMs: 1,
    fields: { worker: 2 ** 22 - 1, sequence: 2 ** 13 - 1 },
  },
];

/**
 * baidu/uid-generator README, Step 4 "Run UnitTest": parseUID of 180363646902239241 gives
 * timestamp "2017-01-19 12:15:46", workerId 4, sequence 9, under the README's Spring config
 * (timeBits 29, workerBits 21, seqBits 13, epochStr "2016-09-20"). Java parses epochStr and
 * formats the timestamp in the same JVM zone; we use +08:00 (the zone of the default epoch
 * 1463673600000 = 2016-05-20 00:00 +08:00).
 */
export const baiduReadmeVector = {
  spec: {
    name: 'baidu-readme',
    epoch: '2016-09-20T00:00:00+08:00',
    unitMs: 1000,
    fields: [
      { name: 'time', bits: 29 },
      { name: 'worker', bits: 21 },
      { name: 'sequence', bits: 13 },
    ],
  },
  id: '180363646902239241',
  unixMs: Date.parse('2017-01-19T12:15:46+08:00'),
  fields: { worker: 4, sequence: 9 },
} as const;
