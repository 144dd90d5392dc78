/**
 * A formatted sequence over segments: business numbers (`INV-2026-12-000042`) that restart each
 * period, each period drawing from a segment tag of its own (`TAG:PERIOD`, e.g.
 * `invoices:2026-12`), created on first use with the base tag's step. Two nodes creating a
 * period at once both go on: one creates it, the other's `TagExistsError` is absorbed. The
 * period is the one this process's clock says when a call starts (see number-format.ts); a
 * segment's numbers are unique but, as with every segment sequence, not gap-free (a restart
 * wastes the rest of its segment). For consecutive numbers, see gap-free.ts.
 *
 * Holds the buffers of the current period and the one before (closed when the period after
 * begins: its unused numbers are wasted, never reissued). Not safe to share between processes
 * by itself; every process opens its own over the shared store.
 */
import type { Clock } from '../core/index.js';
import { TagExistsError, UnknownTagError } from './errors.js';
import type { FormattedNumber, NumberFormat, NumberPeriod } from './number-format.js';
import type { SegmentBuffer } from './segment-buffer.js';
import type { SegmentSequenceOptions } from './sequence.js';
import type { SequenceSource } from './sequence-source.js';
import { assertTag, MAX_TAG_LENGTH } from './tag.js';

/** Options of {@link FormattedSequence}. */
export interface FormattedSequenceOptions extends SegmentSequenceOptions {
  /** Decides each number's period. Default: the wall clock (`Date.now`). */
  readonly clock?: Pick<Clock, 'now'>;
  /** A new period's stored step. Default: the base tag's step, else 1000. */
  readonly step?: number;
}

/** Numbers of one period, taken in one call. */
export interface FormattedBatch {
  readonly period: string;
  readonly values: bigint[];
  readonly texts: string[];
}

/** The longest period key (`2026-12-31`) and its colon. */
const PERIOD_SUFFIX = 11;

export class FormattedSequence {
  readonly tag: string;
  readonly format: NumberFormat;
  readonly #source: SequenceSource;
  readonly #options: FormattedSequenceOptions;
  readonly #clock: Pick<Clock, 'now'>;
  #current: { key: string; buffer: Promise<SegmentBuffer> } | null = null;
  #previous: { key: string; buffer: Promise<SegmentBuffer> } | null = null;
  #closed = false;

  /**
   * A sequence of `tag` printed by `format`, drawing from `source`. Throws like `assertTag` for
   * a bad tag, `RangeError` when the tag leaves no room for a period suffix (at most 117
   * characters for a resetting format).
   */
  constructor(
    source: SequenceSource,
    tag: string,
    format: NumberFormat,
    options: FormattedSequenceOptions = {},
  ) {
    assertTag(tag);
    if (format.reset !== 'never' && tag.length > MAX_TAG_LENGTH - PERIOD_SUFFIX) {
      throw new RangeError(
        `tag: expected at most ${MAX_TAG_LENGTH - PERIOD_SUFFIX} characters for a format that resets (its periods are TAG:PERIOD), got ${tag.length}`,
      );
    }
    this.tag = tag;
    this.format = format;
    this.#source = source;
    this.#options = options;
    this.#clock = options.clock ?? { now: () => Date.now() };
  }

  /** One number, in the period the clock says now. Rejects as `nextBatch`. */
  async next(): Promise<FormattedNumber> {
    const b = await this.nextBatch(1);
    return { value: b.values[0]!, period: b.period, text: b.texts[0]! };
  }

  /**
   * `count` numbers of one period (the one the clock says when the call starts), increasing.
   * Rejects with `UnknownTagError` when the base tag of a segment store was never created,
   * `StoreUnavailableError`, `SequenceExhaustedError`; `Error` after `close()`.
   */
  async nextBatch(count: number): Promise<FormattedBatch> {
    if (this.#closed) throw new Error(`formatted sequence "${this.tag}" is closed`);
    const period = this.format.periodAt(this.#clock.now());
    const buffer = await this.#bufferOf(period);
    const values = await buffer.nextBatch(count);
    return {
      period: period.key,
      values,
      texts: values.map((v) => this.format.format(v, period)),
    };
  }

  /**
   * The buffer of `period`. The one before stays open until the period after it (a call still
   * waiting on it when the period changes gets its numbers); older ones are closed.
   */
  #bufferOf(period: NumberPeriod): Promise<SegmentBuffer> {
    const current = this.#current;
    if (current !== null && current.key === period.key) return current.buffer;
    const previous = this.#previous;
    if (previous !== null && previous.key === period.key) {
      [this.#current, this.#previous] = [previous, current]; // the clock went back: reuse it
      return previous.buffer;
    }
    if (previous !== null) closeLater(previous.buffer);
    this.#previous = current;
    const buffer = this.#open(this.format.periodTag(this.tag, period));
    buffer.catch(() => {
      if (this.#current?.buffer === buffer) this.#current = null; // the next call tries again
    });
    this.#current = { key: period.key, buffer };
    return buffer;
  }

  /** The period's buffer, its tag created first when the store keeps tags and lacks it. */
  async #open(periodTag: string): Promise<SegmentBuffer> {
    const { clock: _clock, step: _step, ...options } = this.#options;
    await this.#ensure(periodTag);
    return this.#source.open(periodTag, options);
  }

  /** Creates the period's tag when a segment store lacks it; another node's creation is fine. */
  async #ensure(periodTag: string): Promise<void> {
    const store = this.#source.segments;
    if (store === null || periodTag === this.tag) return; // counters need no tag
    if ((await store.getTag(periodTag)) !== null) return;
    const base = await store.getTag(this.tag);
    if (base === null) throw new UnknownTagError(this.tag, store.backend);
    try {
      await store.createTag(periodTag, {
        step: this.#options.step ?? base.step,
        description: `period of ${this.tag}`,
      });
    } catch (error) {
      if (!(error instanceof TagExistsError)) throw error; // another node created it first
    }
  }

  /**
   * `count` numbers of the current period from one block taken straight from the source,
   * without a buffer (a one-shot command: `idforge seq next`); the rest of the block, when the
   * stored step is larger, is wasted, never reissued. Rejects as {@link nextBatch}.
   */
  async take(count: number): Promise<FormattedBatch> {
    const period = this.format.periodAt(this.#clock.now());
    const periodTag = this.format.periodTag(this.tag, period);
    await this.#ensure(periodTag);
    const block = await this.#source.take(periodTag, count);
    const values = Array.from({ length: count }, (_, i) => block.first + BigInt(i));
    return { period: period.key, values, texts: values.map((v) => this.format.format(v, period)) };
  }

  /** Stops the buffers (their unused numbers are wasted, never reissued). */
  close(): void {
    this.#closed = true;
    for (const p of [this.#current, this.#previous]) if (p !== null) closeLater(p.buffer);
    this.#current = null;
    this.#previous = null;
  }
}

/** Closes a buffer once it is open (one that failed to open holds nothing). */
function closeLater(buffer: Promise<SegmentBuffer>): void {
  buffer.then(
    (b) => b.close(),
    () => undefined,
  );
}
