/**
 * The Snowflake generators compared with idforge's, each behind one small interface so the
 * speed and safety sections treat them alike. All use Twitter's epoch. @sapphire/snowflake and
 * flake-idgen use the 41/10/12-bit split (time / node / sequence) idforge calls 'default';
 * nodejs-snowflake's split is fixed at 42/12/10, so its cap is 1,024 IDs per millisecond.
 *
 * Where each reads the time (checked in its source in node_modules, version in package.json):
 * - @sapphire/snowflake 3.5: `Date.now()` as the default of `generate()`'s `timestamp`; the
 *   12-bit increment is one counter for the instance, wrapped with `& 0xfff`, never reset
 *   per millisecond and never waited on: the 4,097th ID within one millisecond repeats the 1st.
 * - nodejs-snowflake 2.0: Rust compiled to WebAssembly; it imports the time through its JS glue
 *   `__wbg_now_*`, which calls `Date.now()` on every ID. Blocks until the next millisecond when
 *   the sequence is used up.
 * - flake-idgen 1.4: `Date.now()` per call; without a callback it throws on sequence overflow
 *   ("Sequence exceeded its maximum value") and on any backward step ("Clock moved backwards").
 */
import { createRequire } from 'node:module';
import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake';
import { Snowflake as WasmSnowflake } from 'nodejs-snowflake';

/** Twitter's Snowflake epoch, 2010-11-04T01:42:54.657Z. */
export const TWITTER_EPOCH_MS = 1288834974657;

/** A running generator of 64-bit IDs. */
export interface SnowflakeSource {
  /** The next ID; may throw (that is counted, not hidden). */
  next(): bigint;
  /** What the generator's clock observed, shown after the rollback test. */
  readonly describe?: (() => string) | undefined;
}

/** A Snowflake implementation under test. */
export interface SnowflakeContender {
  readonly name: string;
  /** The time source the generator reads; the rollback test steps this one back. */
  readonly timeSource: string;
  /** Configuration notes shown next to the results. */
  readonly note: string;
  /** A fresh generator (new state: sequence, last timestamp). */
  create(): SnowflakeSource;
}

/** One row of the rollback test: a contender and the clock setup it is shown with. */
export interface RollbackCase {
  readonly contender: SnowflakeContender;
  /** Shown in the table (e.g. which idforge clock); unique, it also names the case. */
  readonly label: string;
}

/** A generator whose throughput is checked against its rate cap. */
export interface ThroughputSubject {
  readonly name: string;
  readonly source: SnowflakeSource;
  /** The layout's maximum IDs per millisecond. */
  readonly capPerMs: number;
  /** Times the generator waited for the next tick because the sequence was used up. */
  exhaustionWaits(): number;
}

interface FlakeIdInstance {
  next(): Buffer;
}
type FlakeIdConstructor = new (options: { id: number; epoch: number }) => FlakeIdInstance;

// flake-idgen is CommonJS without type declarations: load it through require, typed here.
const FlakeId = createRequire(import.meta.url)('flake-idgen') as FlakeIdConstructor;

export const sapphire: SnowflakeContender = {
  name: '@sapphire/snowflake',
  timeSource: 'Date.now',
  note: 'generate(); worker 0, process 1',
  create() {
    const gen = new SapphireSnowflake(BigInt(TWITTER_EPOCH_MS));
    return { next: () => gen.generate() };
  },
};

export const nodejsSnowflake: SnowflakeContender = {
  name: 'nodejs-snowflake',
  timeSource: 'Date.now (via wasm import)',
  note: 'getUniqueID(); instance 1; 10-bit sequence (1,024/ms cap)',
  create() {
    const gen = new WasmSnowflake({ custom_epoch: TWITTER_EPOCH_MS, instance_id: 1 });
    return { next: () => gen.getUniqueID() as bigint };
  },
};

export const flakeIdgen: SnowflakeContender = {
  name: 'flake-idgen',
  timeSource: 'Date.now',
  note: 'next() without callback (throws on overflow); id 1',
  create() {
    const gen = new FlakeId({ id: 1, epoch: TWITTER_EPOCH_MS });
    return { next: () => gen.next().readBigUInt64BE(0) };
  },
};

/** The peers, in the order they are reported. */
export const snowflakePeers: readonly SnowflakeContender[] = [
  sapphire,
  nodejsSnowflake,
  flakeIdgen,
];

/**
 * Runs `fn` while `Date.now()` reads `stepMs` earlier than the real time, as after an NTP
 * step backwards, and restores it afterwards. Only the wall clock is moved: a real step does
 * not move `performance.now()` or `process.hrtime()` (monotonic by definition), so patching
 * those would test something that does not happen.
 */
export function withWallClockSteppedBack<T>(stepMs: number, fn: () => T): T {
  const realNow = Date.now;
  Date.now = () => realNow() - stepMs;
  try {
    return fn();
  } finally {
    Date.now = realNow;
  }
}
