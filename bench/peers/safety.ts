/**
 * What speed must not cost: the measurements of section 2, as plain data. Each task runs in
 * a fresh worker isolate (see isolate.ts), so no generator inherits JIT state, call-site
 * feedback or a patched `Date.now` from another; safety-report.ts turns the results into tables.
 *
 * 2a duplicates in a tight loop, 2b IDs reissued after the wall clock steps back,
 * 2c idforge's sustained throughput against the layout's rate cap.
 */
import type { SnowflakeSource } from './snowflake-peers.js';
import { withWallClockSteppedBack } from './snowflake-peers.js';

const CHUNK = 1 << 20;
/** In the throughput loop, a gap this long between two time checks is a stall. */
export const STALL_MS = 2;

/** Everything one generator produced in a timed loop. */
interface Collected {
  /** The IDs in the order they were issued. */
  readonly ids: BigUint64Array;
  /** Calls that threw instead of returning an ID. */
  readonly errors: number;
  /** `name code: message` of the first error thrown, if any. */
  readonly firstError: string | undefined;
  /** IDs not greater than the one issued before them. */
  readonly notIncreasing: number;
  readonly elapsedMs: number;
  /** `performance.now()` when the loop started and when it ended. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** `Date.now()` when the loop ended. */
  readonly endedAtWall: number;
}

/**
 * Calls `source.next()` in a tight loop for `ms` milliseconds (time read every 256 calls) and
 * keeps every ID. A call that throws is counted and the loop goes on. `first` is the buffer
 * to fill first (allocated ahead by a caller that must not pause just before the loop).
 */
function collect(
  source: SnowflakeSource,
  ms: number,
  first = new BigUint64Array(CHUNK),
): Collected {
  const chunks: BigUint64Array[] = [];
  let chunk = first;
  let pos = 0;
  let errors = 0;
  let firstError: string | undefined;
  let notIncreasing = 0;
  let prev = -1n;
  const start = performance.now();
  const end = start + ms;
  for (let i = 0; ; i++) {
    if ((i & 255) === 0 && performance.now() >= end) break;
    let id: bigint;
    try {
      id = source.next();
    } catch (error) {
      errors++;
      firstError ??= describe(error);
      continue;
    }
    if (id <= prev) notIncreasing++;
    prev = id;
    chunk[pos++] = id;
    if (pos === CHUNK) {
      chunks.push(chunk);
      chunk = new BigUint64Array(CHUNK);
      pos = 0;
    }
  }
  const endedAt = performance.now();
  const endedAtWall = Date.now();
  const elapsedMs = endedAt - start;
  chunks.push(chunk.subarray(0, pos));
  const ids = new BigUint64Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    ids.set(c, offset);
    offset += c.length;
  }
  return {
    ids,
    errors,
    firstError,
    notIncreasing,
    elapsedMs,
    startedAt: start,
    endedAt,
    endedAtWall,
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const message = error.message.length > 60 ? `${error.message.slice(0, 57)}...` : error.message;
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${message}`;
}

/** How many IDs equal an earlier one: total minus distinct values. */
function countDuplicates(ids: BigUint64Array): number {
  const sorted = ids.slice().sort();
  let duplicates = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) duplicates++;
  return duplicates;
}

/**
 * Runs `source` through the same loop for `ms` and discards the result: the measured
 * generator, a fresh instance, then runs on optimised code instead of paying the warm-up.
 */
export function warmUp(source: SnowflakeSource, ms: number): void {
  collect(source, ms);
}

/** 2a for one generator. */
export interface DuplicateResult {
  readonly generated: number;
  readonly elapsedMs: number;
  readonly duplicates: number;
  readonly notIncreasing: number;
  readonly errors: number;
  readonly firstError: string | undefined;
}

/** 2a: one generator in a tight loop for `ms`; counts IDs equal to an earlier one. */
export function measureDuplicates(source: SnowflakeSource, ms: number): DuplicateResult {
  const got = collect(source, ms);
  return {
    generated: got.ids.length,
    elapsedMs: got.elapsedMs,
    duplicates: countDuplicates(got.ids),
    notIncreasing: got.notIncreasing,
    errors: got.errors,
    firstError: got.firstError,
  };
}

/** 2b for one generator. */
export interface RollbackResult {
  readonly before: number;
  readonly after: number;
  /** IDs issued after the step that equal an ID issued before it. */
  readonly reissued: number;
  readonly duplicatesAfter: number;
  readonly errors: number;
  /** The first error, else what the generator's clock observed, else ''. */
  readonly detail: string;
  /** Time between the end of the first phase and the start of the second (added to the step). */
  readonly gapMs: number;
}

/**
 * 2b: generate for `beforeMs`, step `Date.now()` back by `stepMs`, generate for `afterMs` from
 * the same generator; count second-phase IDs equal to a first-phase ID.
 *
 * The step is measured from the generator's last reading: the time between the two phases
 * (building the first phase's array, a GC, a descheduled vCPU; up to ~10 ms on a busy VM) is
 * added to it, else a pause there would hide part of the step and the test would vary.
 */
export function measureRollback(
  source: SnowflakeSource,
  beforeMs: number,
  stepMs: number,
  afterMs: number,
): RollbackResult {
  // Both buffers up front: allocating 8 MB between the phases could pause longer than the step.
  const buffers = [new BigUint64Array(CHUNK), new BigUint64Array(CHUNK)] as const;
  const first = collect(source, beforeMs, buffers[0]);
  const gapMs = Math.max(Date.now() - first.endedAtWall, 0);
  const second = withWallClockSteppedBack(stepMs + gapMs, () =>
    collect(source, afterMs, buffers[1]),
  );
  const issued = new Set<bigint>(first.ids);
  let reissued = 0;
  for (const id of second.ids) if (issued.has(id)) reissued++;
  return {
    before: first.ids.length,
    after: second.ids.length,
    reissued,
    duplicatesAfter: countDuplicates(second.ids),
    errors: first.errors + second.errors,
    detail: second.firstError ?? first.firstError ?? source.describe?.() ?? '',
    gapMs,
  };
}

/** 2c for one generator. */
export interface ThroughputResult {
  readonly generated: number;
  readonly elapsedMs: number;
  readonly notIncreasing: number;
  /** Gaps longer than {@link STALL_MS} between time checks: the process was not running. */
  readonly stalls: number;
  /** Time lost in those gaps, beyond the 1 ms a check interval may legitimately take. */
  readonly stalledMs: number;
}

/**
 * 2c: `source.next()` in a tight loop for `ms`, keeping nothing but the count, the
 * strict-increase check and the stalls.
 */
export function measureThroughput(source: SnowflakeSource, ms: number): ThroughputResult {
  let n = 0;
  let notIncreasing = 0;
  let prev = -1n;
  let stalls = 0;
  let stalledMs = 0;
  const start = performance.now();
  const end = start + ms;
  let lastCheck = start;
  for (;;) {
    if ((n & 255) === 0) {
      // 256 IDs plus at most one wait for the next tick take about 1 ms; a longer gap means
      // the process was not running (a descheduled vCPU, GC): reported apart, not excused.
      const now = performance.now();
      if (now - lastCheck > STALL_MS) {
        stalls++;
        stalledMs += now - lastCheck - 1;
      }
      lastCheck = now;
      if (now >= end) break;
    }
    const id = source.next();
    if (id <= prev) notIncreasing++;
    prev = id;
    n++;
  }
  const elapsedMs = performance.now() - start;
  return { generated: n, elapsedMs, notIncreasing, stalls, stalledMs };
}
