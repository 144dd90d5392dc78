/**
 * The schemes a service makes in its own process, without a node or a store: those whose
 * descriptor in idforge's registry has a service generator. One generator of each per app,
 * shared by the route and the fast lane, so the IDs of one process keep one monotonic state
 * per scheme whichever path answers.
 */
import { MonotonicClock } from 'idforge';
import { type GeneratedScheme, SCHEMES } from 'idforge/schemes';
import type { Scheme } from '../http/schemas.js';
import { BatchClock } from './batch-clock.js';

/** The names of the schemes made in this process by a generator, without a node. */
const GENERATED = new Set<string>(
  SCHEMES.filter((s) => s.service?.generator !== undefined).map((s) => s.name),
);

/** A scheme made in this process by a generator, without a node. */
export type Generated = GeneratedScheme;

export const isGenerated = (scheme: Scheme): scheme is Generated => GENERATED.has(scheme);

/** One app's generators. Holds state; one per app. */
export class GeneratedIds {
  readonly #clock = new BatchClock(new MonotonicClock());
  readonly #generators = new Map<string, { next(): string }>(
    SCHEMES.flatMap((s) =>
      s.service?.generator === undefined ? [] : [[s.name, s.service.generator(this.#clock)]],
    ),
  );

  /**
   * `count` IDs of `scheme`, all on one reading of the clock (see BatchClock). Synchronous:
   * the hot path of /v1/ids has no promise of its own.
   */
  mint(scheme: Generated, count: number): string[] {
    const g = this.#generators.get(scheme)!;
    this.#clock.tick();
    const ids = new Array<string>(count);
    for (let i = 0; i < count; i++) ids[i] = g.next();
    return ids;
  }
}
