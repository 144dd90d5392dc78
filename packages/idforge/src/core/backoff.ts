/**
 * Bounded exponential back-off with jitter, as a pure value: it computes delays and never
 * sleeps itself, so the caller decides how to wait (a timer, an injected sleep).
 *
 *   delay(n) = d/2 + random * d/2,   d = min(initialMs * factor^n, maxMs)
 *
 * ("equal jitter": never less than half the step, so a failing store is not hammered, and
 * spread over the other half, so many clients that failed together do not retry together.)
 * Every retry loop in coordination, sequences and stores takes its delays from one of these.
 * Holds state (the attempt count): one per loop; not shared.
 */
import { rangeError } from './assert.js';

/** Options of {@link Backoff}. Times in ms. */
export interface BackoffOptions {
  /** The first step. Default 50. */
  readonly initialMs?: number;
  /** The largest step. Default 1000 (a recovered store is used again within about 1 s). */
  readonly maxMs?: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
  /** Uniform in [0, 1). Default Math.random (jitter needs no cryptographic quality). */
  readonly random?: () => number;
}

export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly #random: () => number;
  #step: number;
  #attempts = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = positive('Backoff initialMs', options.initialMs ?? 50);
    this.maxMs = positive('Backoff maxMs', options.maxMs ?? 1000);
    if (this.maxMs < this.initialMs) {
      throw rangeError('Backoff maxMs', `at least initialMs (${this.initialMs})`, this.maxMs);
    }
    this.factor = options.factor ?? 2;
    if (typeof this.factor !== 'number' || !(this.factor >= 1) || !Number.isFinite(this.factor)) {
      throw rangeError('Backoff factor', 'a finite number >= 1', this.factor);
    }
    this.#random = options.random ?? Math.random;
    this.#step = this.initialMs;
  }

  /** Failures since the last {@link reset}. */
  get attempts(): number {
    return this.#attempts;
  }

  /** The delay before the next attempt (in [step/2, step)); grows the step for the one after. */
  next(): number {
    const d = this.#step;
    this.#attempts++;
    this.#step = Math.min(d * this.factor, this.maxMs);
    return d / 2 + this.#random() * (d / 2);
  }

  /** After a success: the next failure starts again from `initialMs`. */
  reset(): void {
    this.#step = this.initialMs;
    this.#attempts = 0;
  }
}

function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw rangeError(name, 'a positive finite number', value);
  }
  return value;
}
