/**
 * TypeID generation: a fresh UUIDv7 (RFC 9562 §5.7, by the core's state transitions) written
 * straight into the TypeID suffix, never through UUID text. See ./typeid.ts for the format.
 *
 * The suffix of a UUIDv7 splits on a digit boundary: digits 0-9 are the 48-bit time (with
 * the spec's two zero bits), so they are cached per millisecond with the prefix and `_`;
 * digits 10-25 are the other 80 bits as four 20-bit groups:
 *
 *   g0 = 0111 (version) | rand_a (12) | 10 (variant) | rand_b high bits 29-28
 *   g1 = rand_b high bits 27-8          g2 = rand_b high bits 7-0 | rand_b low bits 31-20
 *   g3 = rand_b low bits 19-0
 */
import type { Clock, UuidV7Method, UuidV7Options } from '../core/index.js';
import {
  assertOneOf,
  assertOutput,
  createUuidV7State,
  defaultClock,
  defaultPool,
  RandomPool,
  stepV7Counter,
  stepV7Fraction,
  stepV7Random,
  typeError,
  type UuidV7State,
  type UuidV7Step,
  unsafeV7Into,
} from '../core/internal.js';
import { assertTypeIdPrefix } from './typeid.js';
import { typeIdTimeCodes, unsafeTypeIdTail } from './typeid-base32.js';

/** Options of {@link TypeIdGenerator}: those of the core's `UuidV7Generator`, and a prefix. */
export interface TypeIdGeneratorOptions extends UuidV7Options {
  /** The prefix {@link TypeIdGenerator.next} uses when given none. Default `''` (none). */
  readonly prefix?: string;
}

const STEPS: Readonly<Record<UuidV7Method, UuidV7Step>> = {
  counter: stepV7Counter,
  fraction: stepV7Fraction,
  random: stepV7Random,
};
const METHODS = Object.keys(STEPS) as UuidV7Method[];

/**
 * Generates TypeIDs whose UUIDs are UUIDv7s from one state: every UUID it issues is strictly
 * greater than the one before (the core's `UuidV7Generator` rules: `method`, the rollover
 * handling and the clock-rollback allowance are the same), so the TypeIDs of one prefix
 * strictly increase as text too (the alphabet is in ASCII order). Holds state; share one
 * instance rather than making one per ID.
 *
 * The constructor throws `TypeError`/`RangeError` on a malformed option or prefix. `next`
 * and `nextBytes` throw `HorizonExceededError` when the time is outside 0 .. 2^48 - 1 ms,
 * `RangeError` when the clock reads NaN or ±Infinity.
 */
export class TypeIdGenerator {
  /** The default prefix. */
  readonly prefix: string;
  readonly method: UuidV7Method;
  readonly #clock: Clock;
  readonly #random: RandomPool;
  readonly #step: UuidV7Step;
  readonly #state: UuidV7State;
  /** The prefix the head was built for (validated). */
  #headPrefix: string;
  /** The millisecond the head was built for (NaN: none yet). */
  #headMs: number;
  /** `prefix_` and the 10 time digits, as one flat string. */
  #head: string;
  readonly #codes: Uint8Array;

  constructor(options: TypeIdGeneratorOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('TypeIdGenerator options', 'an object', options);
    }
    const { prefix = '', method = 'counter', clock, random } = options;
    this.prefix = assertTypeIdPrefix('TypeIdGenerator options.prefix', prefix);
    this.method = assertOneOf('TypeIdGenerator options.method', method, METHODS);
    if (clock !== undefined && typeof clock?.nowPrecise !== 'function') {
      throw typeError('TypeIdGenerator options.clock', 'a Clock (with nowPrecise())', clock);
    }
    if (random !== undefined && typeof random?.fill !== 'function') {
      throw typeError('TypeIdGenerator options.random', 'a RandomSource (with fill())', random);
    }
    this.#clock = clock ?? defaultClock();
    this.#random = random === undefined ? defaultPool() : new RandomPool(random);
    this.#step = STEPS[this.method];
    this.#state = createUuidV7State();
    this.#headPrefix = this.prefix;
    this.#headMs = Number.NaN;
    this.#head = '';
    this.#codes = new Uint8Array(10);
  }

  /**
   * The next TypeID, with `prefix` (default: the generator's). Throws `TypeError`/
   * `RangeError` on an invalid prefix (before any state changes), and as the class says.
   */
  next(prefix: string = this.prefix): string {
    if (prefix !== this.#headPrefix) {
      this.#headPrefix = assertTypeIdPrefix('TypeIdGenerator.next prefix', prefix);
      this.#headMs = Number.NaN;
    }
    const s = this.#step(this.#state, this.#clock.nowPrecise(), this.#random);
    if (s.ms !== this.#headMs) this.#rebuildHead(s.ms);
    const b = s.randBHi;
    const c = s.randBLo;
    // REF: bench/peers (TypeID vs typeid-js): the cached flat head plus one 16-argument
    // String.fromCharCode; no UUID text, no bytes in between.
    return (
      this.#head +
      unsafeTypeIdTail(
        0x70008 | (s.randA << 4) | (b >>> 28),
        (b >>> 8) & 0xfffff,
        ((b & 0xff) << 12) | (c >>> 20),
        c & 0xfffff,
      )
    );
  }

  /**
   * The next ID's UUIDv7 as 16 bytes, written into `out` at `offset` (a new array by default);
   * returns `out`. Shares the state of {@link next}. Throws `TypeError`/`RangeError` when
   * `out` has no room for 16 bytes, and as the class says.
   */
  nextBytes(out?: Uint8Array, offset = 0): Uint8Array {
    if (out === undefined) out = new Uint8Array(16);
    else assertOutput('TypeIdGenerator.nextBytes out', out, offset, 16);
    return unsafeV7Into(
      this.#step(this.#state, this.#clock.nowPrecise(), this.#random),
      out,
      offset,
    );
  }

  #rebuildHead(ms: number): void {
    const t = this.#codes;
    typeIdTimeCodes(ms, t);
    const p = this.#headPrefix;
    // biome-ignore format: the 10 time digits
    const time = String.fromCharCode(t[0]!, t[1]!, t[2]!, t[3]!, t[4]!, t[5]!, t[6]!, t[7]!, t[8]!, t[9]!);
    // Flatten once per millisecond, so each ID is a two-part string, not a deeper rope.
    this.#head = p.length === 0 ? time : flat(`${p}_${time}`);
    this.#headMs = ms;
  }
}

/** `s` as a flat (sequential) string: V8 flattens a rope when it is indexed. */
function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}

let shared: TypeIdGenerator | undefined;

/**
 * A new TypeID with `prefix` (default none) from one process-wide generator: its UUIDs are
 * UUIDv7s (method `counter`), strictly increasing across all callers and prefixes. Throws
 * `TypeError`/`RangeError` on an invalid prefix; `HorizonExceededError` after the year 10889.
 */
export function typeid(prefix = ''): string {
  if (shared === undefined) shared = new TypeIdGenerator();
  return shared.next(prefix);
}
