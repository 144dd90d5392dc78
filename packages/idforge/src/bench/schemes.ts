/**
 * The key schemes of `idforge bench db`: how each is stored (its {@link KeyKind}), on which
 * engines it runs by default, and a generator of its keys in generation order.
 */
import {
  cryptoRandom,
  formatUuid,
  SnowflakeGenerator,
  UlidGenerator,
  UuidV7Generator,
  uuidv4,
} from '../core/index.js';
import { ENGINES, enginesWith, traitsOf } from '../core/internal.js';
import { toMysqlSwap, uuidv4Bytes } from '../uuid/index.js';
import type { BenchEngine, BenchSequence, KeyKind } from './ports.js';
import { BENCH_SCHEMES, type BenchScheme } from './report.js';

type EngineName = BenchEngine['engine'];

interface SchemeInfo {
  readonly kind: KeyKind;
  /** Engines on which the scheme runs when no --schemes list is given. */
  readonly engines: readonly EngineName[];
  /** Engines on which it cannot run at all, and why. */
  readonly never?: { readonly engines: readonly EngineName[]; readonly why: string };
}

// The engines by their traits (core/engines.ts), never by name.
const ALL: readonly EngineName[] = enginesWith('bench');
const SEQUENCE: readonly EngineName[] = ALL.filter((e) => ENGINES[e].bench.sequence);
const NO_SEQUENCE: readonly EngineName[] = ALL.filter((e) => !ENGINES[e].bench.sequence);
const SWAP_IDIOM: readonly EngineName[] = ALL.filter(
  (e) => traitsOf(e).bench?.uuidSwapIdiom === true,
);

const INFO: Readonly<Record<BenchScheme, SchemeInfo>> = {
  bigint: { kind: 'identity', engines: ALL },
  sequence: {
    kind: 'int64',
    engines: SEQUENCE,
    never: { engines: NO_SEQUENCE, why: 'it holds no segment table to allocate from' },
  },
  snowflake: { kind: 'int64', engines: ALL },
  uuidv7: { kind: 'bytes16', engines: ALL },
  ulid: { kind: 'bytes16', engines: ALL },
  uuidv4: { kind: 'bytes16', engines: ALL },
  'uuidv4-text': { kind: 'text36', engines: ALL },
  'uuidv7-text': { kind: 'text36', engines: ALL },
  // MySQL's UUID_TO_BIN(u, 1) order is a MySQL idiom: elsewhere it is the same bytes as any
  // time-ordered 16-byte key, so it runs there only when asked for.
  'uuidv1-swap': { kind: 'bytes16', engines: SWAP_IDIOM },
};

/** How a scheme's keys are stored. */
export function schemeKind(scheme: BenchScheme): KeyKind {
  return INFO[scheme].kind;
}

/** The schemes run on an engine when none are named, in report order. */
export function defaultSchemes(engine: EngineName): BenchScheme[] {
  return BENCH_SCHEMES.filter((s) => INFO[s].engines.includes(engine));
}

/**
 * Parses a comma-separated list of schemes (or "all": every scheme the engine can run).
 * Throws `RangeError` naming an unknown or duplicated scheme, or one the engine cannot run.
 */
export function parseSchemes(list: string, engine: EngineName): BenchScheme[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 1 && names[0] === 'all') {
    return BENCH_SCHEMES.filter((s) => !INFO[s].never?.engines.includes(engine));
  }
  if (names.length === 0) throw new RangeError(`--schemes: expected a list, got "${list}"`);
  const out: BenchScheme[] = [];
  for (const name of names) {
    if (!(BENCH_SCHEMES as readonly string[]).includes(name)) {
      throw new RangeError(
        `--schemes: expected some of ${BENCH_SCHEMES.join(', ')} (or all), got "${name}"`,
      );
    }
    const scheme = name as BenchScheme;
    if (out.includes(scheme)) throw new RangeError(`--schemes: "${name}" is listed twice`);
    const never = INFO[scheme].never;
    if (never?.engines.includes(engine)) {
      throw new RangeError(`--schemes: ${scheme} cannot run on ${engine}: ${never.why}`);
    }
    out.push(scheme);
  }
  return out;
}

/** Makes a scheme's keys, `count` at a time, in generation order. */
export interface KeySource {
  /** The next `count` keys; null for 'identity' (the engine numbers the rows). */
  next(count: number): Promise<(bigint | Uint8Array | string)[] | null>;
  close(): Promise<void>;
}

/** What a key source may need from outside. */
export interface KeySourceDeps {
  /** The engine's sequence, for the 'sequence' scheme. */
  readonly openSequence?: (tag: string) => Promise<BenchSequence>;
}

/** A key source for a scheme; rejects with `RangeError` for 'sequence' without a sequence. */
export async function openKeySource(
  scheme: BenchScheme,
  deps: KeySourceDeps = {},
): Promise<KeySource> {
  const sync = (make: () => bigint | Uint8Array | string): KeySource => ({
    next: async (count) => Array.from({ length: count }, make),
    close: async () => {},
  });
  switch (scheme) {
    case 'bigint':
      return { next: async () => null, close: async () => {} };
    case 'sequence':
      return sequenceKeySource(deps);
    case 'snowflake': {
      const gen = new SnowflakeGenerator({ node: 1 });
      return sync(() => gen.next());
    }
    case 'uuidv7': {
      const gen = new UuidV7Generator();
      return sync(() => gen.nextBytes());
    }
    case 'uuidv7-text': {
      const gen = new UuidV7Generator();
      return sync(() => gen.next());
    }
    case 'ulid': {
      const gen = new UlidGenerator({ monotonic: true });
      return sync(() => gen.nextBytes());
    }
    case 'uuidv4':
      return sync(() => uuidv4Bytes());
    case 'uuidv4-text':
      return sync(() => uuidv4());
    case 'uuidv1-swap': {
      const gen = new UuidV1Source();
      return sync(() => toMysqlSwap(gen.next()));
    }
  }
}

/** The engine's segment sequence as a key source; rejects with `RangeError` without one. */
async function sequenceKeySource(deps: KeySourceDeps): Promise<KeySource> {
  if (deps.openSequence === undefined) {
    throw new RangeError('the sequence scheme needs an engine with a segment table');
  }
  const seq = await deps.openSequence('idforge_bench');
  return { next: (count) => seq.nextBatch(count), close: () => seq.close() };
}

/** Gregorian offset: 100-ns intervals from 1582-10-15 to 1970-01-01. */
const GREGORIAN_OFFSET = 122192928000000000n;

/**
 * UUIDv1 as MySQL's UUID() makes them (RFC 9562 §5.1): a 60-bit count of 100-ns intervals
 * since 1582, a clock sequence and a node, both random once per source (the multicast bit set
 * on the node, as the RFC asks of a random node). Within a millisecond the 100-ns count steps
 * by one, so the UUIDs of one source are strictly increasing in time.
 */
class UuidV1Source {
  readonly #tail = new Uint8Array(8);
  #last = 0n;

  constructor() {
    cryptoRandom.fill(this.#tail);
    this.#tail[0] = (this.#tail[0]! & 0x3f) | 0x80; // variant 10
    this.#tail[2] = this.#tail[2]! | 0x01; // multicast bit of a random node
  }

  next(): string {
    let t = BigInt(Date.now()) * 10000n + GREGORIAN_OFFSET;
    if (t <= this.#last) t = this.#last + 1n;
    this.#last = t;
    const bytes = new Uint8Array(16);
    const low = Number(t & 0xffffffffn);
    const mid = Number((t >> 32n) & 0xffffn);
    const high = Number((t >> 48n) & 0x0fffn) | 0x1000;
    bytes[0] = low >>> 24;
    bytes[1] = (low >>> 16) & 0xff;
    bytes[2] = (low >>> 8) & 0xff;
    bytes[3] = low & 0xff;
    bytes[4] = mid >>> 8;
    bytes[5] = mid & 0xff;
    bytes[6] = high >>> 8;
    bytes[7] = high & 0xff;
    bytes.set(this.#tail, 8);
    return formatUuid(bytes);
  }
}
