/**
 * The schemes a service makes in its own process, without a node or a store (UUIDv4, UUIDv7,
 * ULID, KSUID): one generator of each per app, shared by the route and the fast lane, so the
 * IDs of one process keep one monotonic state per scheme whichever path answers.
 */
import {
  KsuidGenerator,
  MonotonicClock,
  UlidGenerator,
  UuidV4Generator,
  UuidV7Generator,
} from 'idforge';
import { BatchClock } from './batch-clock.js';
import type { Scheme } from './schemas.js';

/** The schemes made in this process by a generator, without a node. */
export type Generated = Exclude<Scheme, 'snowflake' | 'hlc'>;

export const isGenerated = (scheme: Scheme): scheme is Generated =>
  scheme !== 'snowflake' && scheme !== 'hlc';

/** One app's generators. Holds state; one per app. */
export class GeneratedIds {
  readonly #clock = new BatchClock(new MonotonicClock());
  readonly #generators: Record<Generated, { next(): string }> = {
    uuidv4: new UuidV4Generator(),
    uuidv7: new UuidV7Generator({ clock: this.#clock }),
    // Monotonic: the ULIDs of one answer sort in the order they are given, like the UUIDv7s.
    ulid: new UlidGenerator({ clock: this.#clock, monotonic: true }),
    ksuid: new KsuidGenerator({ clock: this.#clock }),
  };

  /**
   * `count` IDs of `scheme`, all on one reading of the clock (see BatchClock). Synchronous:
   * the hot path of /v1/ids has no promise of its own.
   */
  mint(scheme: Generated, count: number): string[] {
    const g = this.#generators[scheme];
    this.#clock.tick();
    const ids = new Array<string>(count);
    for (let i = 0; i < count; i++) ids[i] = g.next();
    return ids;
  }
}
