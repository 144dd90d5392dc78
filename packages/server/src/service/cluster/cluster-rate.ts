/**
 * The rate limit of a `--processes N` node, as one of its processes counts it: the windows
 * are the primary's (one RateLimiter there), and a process admits requests the primary has
 * granted it, a batch at a time, so the limit is the node's: N processes each with the whole
 * limit admitted N times it (issue 32).
 *
 * A request of a key this process holds requests of is counted here, at the cost of a local
 * limiter (a map lookup, one clock read): the fast lane's path. A key it holds none of waits
 * for a grant (one IPC round trip, shared by the requests of that key arriving meanwhile),
 * which goes through the routes' hook. The primary grants what is asked or, if more, a share of
 * what is left of the window (1/(2N)), so grants shrink as the window fills.
 *
 * Tolerance: a key is never admitted more than `rateLimit` times in a window across the node
 * (every admitted request was counted in the primary's window, and a grant lapses at that
 * window's end). It may be refused early by what other processes hold and no request of that
 * key reaches: at most each one's last grant, at most (N - 1) × rateLimit / (2N) at the start
 * of a window, fewer as it fills. `x-ratelimit-remaining` is what the primary had left at this
 * process's last grant plus what this process holds.
 */
import { HttpError, ServiceCode } from '../http/errors.js';
import type { Grant, Limiter, RateDecision } from '../http/rate-limit.js';

/** What this process holds of one key's window. */
interface Held {
  /** Requests granted and not yet admitted. */
  tokens: number;
  /** What the primary had left after the last grant. */
  remaining: number;
  resetAtMs: number;
  /** The grant in flight (null: none asked). */
  asking: Promise<void> | null;
}

/** Asks the primary for `need` (or more) requests of `key`. */
export type AskGrant = (key: string, need: number) => Promise<Grant>;

/** Keys held at most: as the local limiter's maxKeys, so many addresses cannot grow the map. */
const MAX_KEYS = 5000;

/** One process's view of the node's rate limit. Holds state; one per app. */
export class ClusterRateLimiter implements Limiter {
  readonly max: number;
  readonly windowMs: number;
  readonly #ask: AskGrant;
  readonly #now: () => number;
  readonly #held = new Map<string, Held>();

  constructor(max: number, windowMs: number, ask: AskGrant, now: () => number = Date.now) {
    this.max = max;
    this.windowMs = windowMs;
    this.#ask = ask;
    this.#now = now;
  }

  takeUnlessFull(key: string): RateDecision | null {
    const h = this.#held.get(key);
    if (h === undefined || h.tokens === 0) return null;
    const now = this.#now();
    if (h.resetAtMs <= now) return null;
    h.tokens--;
    return decision(false, this.max, h, now);
  }

  take(key: string): RateDecision | Promise<RateDecision> {
    const d = this.takeUnlessFull(key);
    if (d !== null) return d;
    const now = this.#now();
    const h = this.#live(key, now);
    // The node's window is used up (as of the last grant): refused without asking again.
    if (h.asking === null && h.remaining === 0 && h.tokens === 0 && h.resetAtMs > now) {
      return decision(true, this.max, h, now);
    }
    return this.#wait(key, h).then(() => this.take(key));
  }

  /** `key`'s holding, a new one if it had none or its window ended. */
  #live(key: string, now: number): Held {
    const h = this.#held.get(key);
    if (h !== undefined && (h.resetAtMs > now || h.asking !== null)) return h;
    if (h !== undefined) this.#held.delete(key);
    else if (this.#held.size >= MAX_KEYS) this.#dropOne();
    const fresh: Held = { tokens: 0, remaining: 1, resetAtMs: 0, asking: null };
    this.#held.set(key, fresh);
    return fresh;
  }

  /**
   * Waits for a grant of `key`: the one in flight, else a new one. Each asks for one request:
   * the primary grants a share of the window when that is more, and the requests that waited
   * together then take from it (or ask again when it was not enough).
   */
  #wait(key: string, h: Held): Promise<void> {
    h.asking ??= this.#ask(key, 1).then(
      (g) => {
        h.asking = null;
        h.tokens = g.granted;
        h.remaining = g.remaining;
        h.resetAtMs = g.resetAtMs;
      },
      (error: unknown) => {
        h.asking = null;
        throw new HttpError(
          ServiceCode.OVERLOADED,
          `the rate limit is the node's and its primary process did not grant requests (${(error as Error).message}); retry, or on another node`,
        );
      },
    );
    return h.asking;
  }

  #dropOne(): void {
    const oldest = this.#held.keys().next();
    if (oldest.done !== true) this.#held.delete(oldest.value);
  }
}

function decision(limited: boolean, limit: number, h: Held, now: number): RateDecision {
  return {
    limited,
    limit,
    remaining: limited ? 0 : h.remaining + h.tokens,
    resetS: Math.ceil((h.resetAtMs - now) / 1000),
  };
}
