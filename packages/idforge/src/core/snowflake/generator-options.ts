/**
 * The checks of SnowflakeGenerator's options, in the order the constructor has always made
 * them, and the warning it gives for a layout running out. Internal to the snowflake folder.
 */
import { assertNumber, rangeError, typeError } from '../assert.js';
import { type Clock, defaultClock } from '../clock.js';
import type { RandomSource } from '../random.js';
import { layoutOf, nodeValues } from './generator-fields.js';
import { type Layout, layoutYearsLeft } from './layout.js';

const OPTIONS = /* @__PURE__ */ new Set(
  'layout node fields clock toleranceMs stallTimeoutMs warnYears onWarning admit random'.split(' '),
);

/** Options of `SnowflakeGenerator` (generator.ts). Validated at construction, never after. */
export interface SnowflakeGeneratorOptions {
  /** A layout or a preset name. Default 'default'. */
  readonly layout?: Layout | string;
  /** Value of the layout's field named 'node' (RangeError if it has none). No default. */
  readonly node?: number;
  /** Values of the node fields by name. Every node field must be given; no default. */
  readonly fields?: Readonly<Record<string, number>>;
  /** Source of time. Default {@link defaultClock} (wall-anchored, monotonic). */
  readonly clock?: Clock;
  /** Backward clock steps up to this many ms are waited out; larger ones throw. Default 10. */
  readonly toleranceMs?: number;
  /**
   * When a tick's sequence is used up, the longest one call waits for the clock to reach the
   * next tick; then it throws `ClockStalledError` (a clock that stopped would block for ever).
   * Measured as the sum of the sleeps asked of the clock. Default 1000.
   */
  readonly stallTimeoutMs?: number;
  /** Warn at construction when the layout has fewer years left than this. Default 10. */
  readonly warnYears?: number;
  /** Receives that warning. Default `console.warn`. */
  readonly onWarning?: (message: string) => void;
  /**
   * Called before the first ID of each new tick with the tick's start in unix ms; throwing
   * refuses the tick (the error reaches the caller, the state is untouched). The coordination
   * layer fences a node with it (lease deadline, high-water mark reservation). It is not
   * called for further IDs within a tick already admitted. Default: none.
   */
  readonly admit?: (tickStartMs: number) => void;
  /**
   * Randomness for the genes of IDs minted without one (layouts with a gene field only).
   * Default `crypto.getRandomValues`, drawn 4 KiB at a time.
   */
  readonly random?: RandomSource;
}

/** The options checked, with their defaults (`random` is checked, and read by GeneSource). */
export interface GeneratorSetup {
  readonly layout: Layout;
  readonly clock: Clock;
  readonly warnYears: number;
  readonly onWarning: (message: string) => void;
  readonly nodeFields: Readonly<Record<string, number>>;
  readonly toleranceMs: number;
  readonly stallTimeoutMs: number;
  readonly admit: ((tickStartMs: number) => void) | undefined;
}

/** Checks `options` (TypeError/RangeError naming the option) and fills in the defaults. */
export function checkGeneratorOptions(options: SnowflakeGeneratorOptions): GeneratorSetup {
  if (typeof options !== 'object' || options === null) {
    throw typeError('SnowflakeGenerator options', 'an object', options);
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.has(key)) {
      throw rangeError('SnowflakeGenerator options', `only ${[...OPTIONS].join(', ')}`, key);
    }
  }
  const layout = layoutOf(options.layout);
  const clock = options.clock ?? defaultClock();
  if (!['now', 'nowPrecise', 'sleep'].every((m) => typeof (clock as never)?.[m] === 'function')) {
    throw typeError('SnowflakeGenerator clock', 'a Clock', clock);
  }
  const warnYears = assertNumber('SnowflakeGenerator warnYears', options.warnYears ?? 10, 0);
  const onWarning = options.onWarning ?? ((m: string) => console.warn(m));
  if (typeof onWarning !== 'function') {
    throw typeError('SnowflakeGenerator onWarning', 'a function', onWarning);
  }
  const nodeFields = nodeValues(layout, options);
  const toleranceMs = assertNumber('SnowflakeGenerator toleranceMs', options.toleranceMs ?? 10, 0);
  const stallTimeoutMs = assertNumber(
    'SnowflakeGenerator stallTimeoutMs',
    options.stallTimeoutMs ?? 1000,
    0,
  );
  if (options.admit !== undefined && typeof options.admit !== 'function') {
    throw typeError('SnowflakeGenerator admit', 'a function', options.admit);
  }
  const random = options.random as { fill?: unknown } | null | undefined;
  if (random !== undefined && typeof random?.fill !== 'function') {
    throw typeError('SnowflakeGenerator random', 'a RandomSource', options.random);
  }
  const { admit } = options;
  return { layout, clock, warnYears, onWarning, nodeFields, toleranceMs, stallTimeoutMs, admit };
}

/**
 * The warning for a layout with fewer than `warnYears` years left at `nowMs` (or none left);
 * undefined when it has more.
 */
export function expiryWarning(
  layout: Layout,
  nowMs: number,
  warnYears: number,
): string | undefined {
  const left = layoutYearsLeft(layout, nowMs);
  if (!(left < warnYears)) return undefined; // NaN (a clock reading NaN) warns of nothing
  const end = new Date(layout.horizonMs).toISOString();
  return left <= 0
    ? `idforge: layout "${layout.name}" expired at ${end}; generating with it throws ` +
        'HorizonExceededError. Move to a new named layout.'
    : `idforge: layout "${layout.name}" runs out at ${end}, in ${left.toFixed(1)} years ` +
        `(fewer than warnYears ${warnYears}). Plan a new named layout.`;
}
