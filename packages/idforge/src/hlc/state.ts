/**
 * The state of one hybrid logical clock, `(l, c)`, with its settings and counters, and the
 * one definition of a receive: what {@link HybridLogicalClock} (./clock.ts) and the HLC ID
 * generator (./ids.ts) both hold, so the receipt of a message is written once. The algorithm
 * itself is ./step.ts. Not exported by the package.
 */
import { HlcDriftError } from './errors.js';
import { advanceHlc, type HlcSettings } from './step.js';
import { assertHlc, type HlcTimestamp } from './timestamp.js';

/** Counters of a hybrid logical clock (`stats` of {@link HybridLogicalClock} and the ID generator). */
export interface HlcStats {
  /** Timestamps issued (IDs, for the ID generator). */
  readonly issued: number;
  /** Remote timestamps merged by `receive`. */
  readonly received: number;
  /** Calls that waited for the physical clock because the counter was full. */
  readonly waits: number;
  /** Remote timestamps refused for drift. */
  readonly refused: number;
}

/**
 * `(l, c)` and the counters, as plain fields: the owners' fast paths read and bump them
 * directly (a send event without a full counter allocates nothing); everything else goes
 * through {@link advance}, {@link receive} and {@link commit}.
 */
export class HlcState {
  readonly s: HlcSettings;
  l: number;
  c: number;
  issued = 0;
  received = 0;
  waits = 0;
  refused = 0;
  readonly #onWait = (): void => {
    this.waits++;
  };

  constructor(settings: HlcSettings) {
    this.s = settings;
    this.l = settings.initial.l;
    this.c = settings.initial.c;
  }

  /** The next send or local event's timestamp (advanceHlc), not committed. Throws as it. */
  advance(): HlcTimestamp {
    return advanceHlc({ l: this.l, c: this.c }, undefined, this.s, this.#onWait);
  }

  /**
   * The receipt of a message stamped `remote`: checks it (`TypeError`/`RangeError`, named
   * after `owner`), merges it by the paper's receive rule (advanceHlc: {@link HlcDriftError},
   * counted as refused, HlcCounterOverflowError, `HorizonExceededError`), lets `check` refuse
   * the result (the ID layout's narrower horizon), then commits it and counts it. On any
   * throw the state is unchanged.
   */
  receive(owner: string, remote: HlcTimestamp, check?: (l: number) => void): HlcTimestamp {
    assertHlc(`${owner} receive remote`, remote);
    let next: HlcTimestamp;
    try {
      next = advanceHlc({ l: this.l, c: this.c }, remote, this.s, this.#onWait);
    } catch (e) {
      if (e instanceof HlcDriftError) this.refused++;
      throw e;
    }
    check?.(next.l);
    this.commit(next);
    this.received++;
    return next;
  }

  /** Makes `next` the state. */
  commit(next: HlcTimestamp): void {
    this.l = next.l;
    this.c = next.c;
  }

  get last(): HlcTimestamp {
    return { l: this.l, c: this.c };
  }

  get stats(): HlcStats {
    return {
      issued: this.issued,
      received: this.received,
      waits: this.waits,
      refused: this.refused,
    };
  }
}
