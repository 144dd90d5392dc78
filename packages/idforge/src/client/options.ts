/**
 * The options of `createClient`, validated once at construction (docs/client.md). Misuse
 * throws `TypeError` (wrong type) or `RangeError` (right type, wrong value) reading
 * "createClient options.NAME: expected X, got Y". The token is never echoed: a bad one is
 * described by its length only.
 */

import { MAX_GENE_FROM, SERVICE_SCHEMES, type ServiceScheme } from '../wire/index.js';

/** The schemes the service issues (`GET /v1/ids/{scheme}`): the wire contract's list. */
export const ID_SCHEMES = SERVICE_SCHEMES;
export type IdScheme = ServiceScheme;

/**
 * The default `timeoutMs`: above the longest the service waits on its store before it answers
 * (its SEQUENCE_WAIT_MS, 1,500 ms, in packages/server/src/service/domain/sequences.ts; a test keeps the two apart by
 * at least 500 ms), so a store outage reaches the caller as the server's 503 and its code, not
 * as a timeout of the client's own.
 */
export const DEFAULT_TIMEOUT_MS = 2000;

/** Options of `createClient`. Times in milliseconds. */
export interface ClientOptions {
  /** Base URLs of the service's nodes (`http://host:port`, optionally with a path). Required. */
  readonly urls: readonly string[];
  /** Bearer token sent as `Authorization: Bearer <token>`. Default: none. */
  readonly token?: string;
  /** Per request, answer and body included. Default 2000 ({@link DEFAULT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Numbers asked for per sequence segment (the server may round it up). Default 1000. */
  readonly segmentSize?: number;
  /** Share of the current segment used when the next is fetched in the background. Default 0.2. */
  readonly prefetchAt?: number;
  /** First back-off of a failed server (jittered, doubling per failed probe to 20x). Default 500. */
  readonly probeMs?: number;
  /** The fetch to use. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Monotonic milliseconds, for the back-off only. Default `performance.now`. */
  readonly now?: () => number;
}

/** The validated options, every default filled in. */
export interface ResolvedOptions {
  readonly urls: readonly string[];
  readonly token: string | undefined;
  readonly timeoutMs: number;
  readonly segmentSize: number;
  readonly prefetchAt: number;
  readonly probeMs: number;
  readonly fetch: typeof fetch;
  readonly now: () => number;
}

const KNOWN = [
  'urls',
  'token',
  'timeoutMs',
  'segmentSize',
  'prefetchAt',
  'probeMs',
  'fetch',
  'now',
] as const;

/** The largest delay a timer holds (2^31 - 1 ms, about 24.8 days). */
const MAX_DELAY = 2 ** 31 - 1;

/** Short, safe rendering of a value for an error message (never the token's text). */
export function describe(value: unknown): string {
  if (typeof value === 'string') {
    return `string "${value.length > 40 ? `${value.slice(0, 37)}...` : value}"`;
  }
  if (typeof value === 'bigint') return `bigint ${value}n`;
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return `array(${value.length})`;
  if (typeof value === 'object') return 'object';
  return `${typeof value} ${String(value)}`;
}

export function typeError(name: string, expected: string, got: unknown): TypeError {
  return new TypeError(`${name}: expected ${expected}, got ${describe(got)}`);
}

export function rangeError(name: string, expected: string, got: unknown): RangeError {
  return new RangeError(`${name}: expected ${expected}, got ${describe(got)}`);
}

/** An integer in [min, max]. */
export function integer(name: string, value: unknown, min: number, max: number): number {
  const expected = `an integer in [${min}, ${max}]`;
  if (typeof value !== 'number') throw typeError(name, expected, value);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw rangeError(name, expected, value);
  }
  return value;
}

/** What `batch` and `next` may ask besides the scheme: Snowflake only. */
export interface IdRequestOptions {
  /** One of the node's configured layouts (its own by default). */
  readonly layout?: string;
  /** On a layout with a gene field: the gene of every ID, an integer >= 0. */
  readonly gene?: number;
  /**
   * On a layout with a gene field: take the gene from this 64-bit ID (a bigint, or its
   * decimal string), e.g. the ID of an order's user, so the order routes to the user's shard.
   */
  readonly geneFrom?: bigint | string;
}

/**
 * The query string (after `count`) that `options` ask for: `&layout=...&gene=...`. Throws
 * `TypeError`/`RangeError` for a malformed option or one given for a scheme other than
 * snowflake.
 */
export function idQuery(scheme: IdScheme, options: IdRequestOptions | undefined): string {
  if (options === undefined) return '';
  if (typeof options !== 'object' || options === null) {
    throw typeError('options', 'an object { layout?, gene?, geneFrom? }', options);
  }
  const { layout, gene, geneFrom } = options;
  if (layout === undefined && gene === undefined && geneFrom === undefined) return '';
  if (scheme !== 'snowflake') {
    throw rangeError('options', 'layout, gene and geneFrom for snowflake only', scheme);
  }
  let q = '';
  if (layout !== undefined) {
    if (typeof layout !== 'string' || layout.length === 0) {
      throw typeError('options.layout', 'a layout name', layout);
    }
    q += `&layout=${encodeURIComponent(layout)}`;
  }
  if (gene !== undefined && geneFrom !== undefined) {
    throw typeError('options', 'gene or geneFrom, not both', options);
  }
  if (gene !== undefined) q += `&gene=${integer('options.gene', gene, 0, Number.MAX_SAFE_INTEGER)}`;
  if (geneFrom !== undefined) {
    const expected = 'a 64-bit ID: a bigint or decimal string in [0, 2^64-1]';
    let id: bigint;
    if (typeof geneFrom === 'bigint') id = geneFrom;
    else if (typeof geneFrom === 'string' && /^[0-9]{1,20}$/.test(geneFrom)) id = BigInt(geneFrom);
    else throw typeError('options.geneFrom', expected, geneFrom);
    if (id < 0n || id > MAX_GENE_FROM) throw rangeError('options.geneFrom', expected, geneFrom);
    q += `&geneFrom=${id}`;
  }
  return q;
}

/**
 * Validates `options` and fills in the defaults. See {@link ClientOptions}. `who` names the
 * function in messages, `known` the keys it takes, `timeoutMs` its default timeout.
 */
export function resolveOptions(
  options: unknown,
  who = 'createClient',
  known: readonly string[] = KNOWN,
  defaultTimeoutMs = DEFAULT_TIMEOUT_MS,
): ResolvedOptions {
  const name = (key: string) => `${who} options.${key}`;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw typeError(`${who} options`, 'an object with urls', options);
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) {
      throw rangeError(`${who} options`, `only ${known.join(', ')}`, `key ${key}`);
    }
  }
  const f = o.fetch ?? globalThis.fetch;
  if (typeof f !== 'function') throw typeError(name('fetch'), 'a function', o.fetch);
  const now = o.now ?? (() => performance.now());
  if (typeof now !== 'function') throw typeError(name('now'), 'a function', o.now);
  const prefetchAt = o.prefetchAt ?? 0.2;
  if (typeof prefetchAt !== 'number') {
    throw typeError(name('prefetchAt'), 'a number in [0, 1)', prefetchAt);
  }
  if (!(prefetchAt >= 0 && prefetchAt < 1)) {
    throw rangeError(name('prefetchAt'), 'a number in [0, 1)', prefetchAt);
  }
  return {
    urls: resolveUrls(o.urls, name('urls')),
    token: resolveToken(o.token, name('token')),
    timeoutMs: integer(name('timeoutMs'), o.timeoutMs ?? defaultTimeoutMs, 1, MAX_DELAY),
    segmentSize: integer(name('segmentSize'), o.segmentSize ?? 1000, 1, 1_000_000_000),
    prefetchAt,
    probeMs: integer(name('probeMs'), o.probeMs ?? 500, 1, Math.floor(MAX_DELAY / 20)),
    fetch: f as typeof fetch,
    now: now as () => number,
  };
}

/** Absolute http(s) URLs without credentials, query or fragment; no trailing slash; distinct. */
function resolveUrls(value: unknown, name: string): string[] {
  const expected = 'a non-empty array of http(s) base URLs';
  if (!Array.isArray(value)) throw typeError(name, expected, value);
  if (value.length === 0) throw rangeError(name, expected, value);
  const out: string[] = [];
  value.forEach((raw: unknown, i) => {
    const item = `${name}[${i}]`;
    if (typeof raw !== 'string') throw typeError(item, 'a URL string', raw);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw rangeError(item, 'an absolute URL such as http://127.0.0.1:8080', raw);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw rangeError(item, 'an http: or https: URL', raw);
    }
    // A password in a URL would end up in error messages and logs; the token has its option.
    if (url.username !== '' || url.password !== '') {
      throw new RangeError(
        `${item}: expected a URL without user:password@ (pass a token as options.token), ` +
          'got a URL with credentials',
      );
    }
    if (url.search !== '' || url.hash !== '') {
      throw rangeError(item, 'a base URL without ?query or #fragment', raw);
    }
    const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    if (out.includes(base)) throw rangeError(item, 'a URL not listed twice', raw);
    out.push(base);
  });
  return out;
}

/** A bearer token: visible ASCII (RFC 6750 b64token and more), echoed by length only. */
function resolveToken(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new TypeError(`${name}: expected a string, got ${typeof value}`);
  }
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new RangeError(
      `${name}: expected a non-empty string of visible ASCII characters (no spaces), ` +
        `got a string of ${value.length} characters that is not`,
    );
  }
  return value;
}
