/**
 * The rate limit (`rateLimit` requests per `rateWindowMs`, per token or per client address):
 * one fixed window per key, opened by the key's first request and closed `windowMs` later,
 * the rule @fastify/rate-limit's local store applied before it was replaced by this one.
 * One limiter per app, read by both of the app's paths (the routes' hook in plugins/limits.ts
 * and the fast lane), so a request counts once whichever path answers it.
 *
 * At most `maxKeys` keys are kept (the one whose window opened first is dropped first, which
 * costs a request nothing while its window lasts), so callers from many addresses cannot grow
 * the process without bound; a dropped key starts a new window.
 *
 * In a `--processes N` node the windows are the primary's, and each process spends requests the
 * primary granted it (cluster-rate.ts): the limit is the node's, not N times it.
 */

/** One key's window. */
interface Window {
  count: number;
  readonly startMs: number;
}

/** What a request was told: whether it is over the limit, and the headers' values. */
export interface RateDecision {
  /** The request is over the limit (answer 429). */
  readonly limited: boolean;
  /** `x-ratelimit-limit`. */
  readonly limit: number;
  /** `x-ratelimit-remaining`: requests left in the window after this one (0 when limited). */
  readonly remaining: number;
  /** `x-ratelimit-reset` (and `Retry-After` when limited): whole seconds to the window's end. */
  readonly resetS: number;
}

/**
 * The headers of an answer the limit counted, as name, value pairs (429: with Retry-After),
 * appended to `into` (a new list by default).
 */
export function rateHeaders(d: RateDecision, into: string[] = []): string[] {
  into.push(
    'x-ratelimit-limit',
    String(d.limit),
    'x-ratelimit-remaining',
    String(d.remaining),
    'x-ratelimit-reset',
    String(d.resetS),
  );
  if (d.limited) into.push('retry-after', String(d.resetS));
  return into;
}

/** What the app's paths count requests on: this process's windows, or the node's (cluster-rate.ts). */
export interface Limiter {
  readonly max: number;
  readonly windowMs: number;
  /** Counts one request of `key`; a promise when the decision needs the primary's grant. */
  take(key: string): RateDecision | Promise<RateDecision>;
  /** Counts one request of `key` if that can be decided at once and it is not over; else null. */
  takeUnlessFull(key: string): RateDecision | null;
}

/** Requests of a key's window granted at once to one process of several (cluster-rate.ts). */
export interface Grant {
  readonly granted: number;
  /** What is left in the window after this grant. */
  readonly remaining: number;
  /** When the window ends, Unix ms. */
  readonly resetAtMs: number;
}

export interface RateLimiterOptions {
  /** Requests per window and key (≥ 1). */
  readonly max: number;
  readonly windowMs: number;
  /** Keys kept. Default 5000. */
  readonly maxKeys?: number;
  /** Unix ms. Default Date.now. */
  readonly now?: () => number;
}

/** Fixed-window request counts per key. Holds state; one per app (or per node: its primary). */
export class RateLimiter implements Limiter {
  readonly max: number;
  readonly windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(options: RateLimiterOptions) {
    this.max = options.max;
    this.windowMs = options.windowMs;
    this.#maxKeys = options.maxKeys ?? 5000;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one request of `key`. */
  take(key: string): RateDecision {
    const now = this.#now();
    return this.#decide(this.#open(key, this.#windows.get(key), now), now);
  }

  /**
   * Counts one request of `key` unless it would be over the limit: its decision, or null with
   * nothing counted (what {@link full} then {@link take} do, with one lookup and one clock read).
   */
  takeUnlessFull(key: string): RateDecision | null {
    const now = this.#now();
    const w = this.#windows.get(key);
    if (w !== undefined && w.startMs + this.windowMs > now && w.count >= this.max) return null;
    return this.#decide(this.#open(key, w, now), now);
  }

  /**
   * Counts `need` requests of `key`, or a share of what is left of its window if more
   * (`1/shares` of it), never past the limit: what one process of several may then admit
   * itself. Granted 0 when the window is used up.
   */
  grant(key: string, need: number, shares: number): Grant {
    const w = this.#open(key, this.#windows.get(key), this.#now());
    const left = this.max - w.count;
    const granted = Math.max(0, Math.min(left, Math.max(need, Math.floor(left / shares))));
    w.count += granted;
    return {
      granted,
      remaining: Math.max(0, left - granted),
      resetAtMs: w.startMs + this.windowMs,
    };
  }

  /** Whether the next request of `key` would be over the limit (counts nothing). */
  full(key: string): boolean {
    const w = this.#windows.get(key);
    return w !== undefined && w.startMs + this.windowMs > this.#now() && w.count >= this.max;
  }

  /** `key`'s window `w` if still open at `now`, else a new one (set last: the map's order). */
  #open(key: string, w: Window | undefined, now: number): Window {
    if (w !== undefined && w.startMs + this.windowMs > now) return w;
    if (w !== undefined) this.#windows.delete(key);
    else if (this.#windows.size >= this.#maxKeys) this.#dropOldest();
    const opened = { count: 0, startMs: now };
    this.#windows.set(key, opened);
    return opened;
  }

  #decide(w: Window, now: number): RateDecision {
    w.count++;
    const limited = w.count > this.max;
    return {
      limited,
      limit: this.max,
      remaining: limited ? 0 : this.max - w.count,
      resetS: Math.ceil((w.startMs + this.windowMs - now) / 1000),
    };
  }

  #dropOldest(): void {
    const oldest = this.#windows.keys().next();
    if (oldest.done !== true) this.#windows.delete(oldest.value);
  }
}

/** The limiter's key of a request: its token's name, else its client address. */
export function rateKey(principal: { readonly name: string } | null, ip: string | undefined) {
  return principal === null ? `ip:${ip}` : `token:${principal.name}`;
}
