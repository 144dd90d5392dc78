/**
 * The client of the idforge HTTP service (docs/client.md): IDs of every scheme, and buffered
 * sequences, from one or more nodes with round robin and failover. Built on the built-in
 * `fetch`; imports only the core, so it runs in Node.js, browsers and edge runtimes.
 */
import { MAX_REQUEST_COUNT, MAX_TAG_LENGTH } from '../wire/index.js';
import { ClientClosedError } from './errors.js';
import {
  type ClientOptions,
  ID_SCHEMES,
  type IdRequestOptions,
  type IdScheme,
  idQuery,
  integer,
  type ResolvedOptions,
  rangeError,
  resolveOptions,
  typeError,
} from './options.js';
import { ClientSequence } from './sequence.js';
import { ServerPool, type ServerStats } from './servers.js';
import { idsParser, segmentParser } from './wire.js';

/** What `client.stats()` returns. */
export interface ClientStats {
  /** Per server, in the order of `options.urls`. */
  readonly servers: readonly ServerStats[];
}

/**
 * A client of the idforge service. Create it with {@link createClient}; share one per process
 * (it holds the servers' state and the sequences' buffers); `close()` it at shutdown.
 */
export class IdforgeClient {
  readonly #options: ResolvedOptions;
  readonly #pool: ServerPool;
  #closed = false;
  readonly #sequences = new Map<string, ClientSequence>();

  /** Use {@link createClient}. */
  constructor(options: ClientOptions) {
    this.#options = resolveOptions(options);
    this.#pool = new ServerPool(this.#options);
  }

  /**
   * One ID of `scheme` (`uuidv4`, `uuidv7`, `ulid`, `ksuid`, `snowflake`, `hlc`) as the service
   * formats it (a Snowflake or HLC ID in decimal). Rejects with `TypeError`/`RangeError` for another
   * scheme; `ServiceUnavailableError` when no server served it; `ServiceAuthError` (401/403);
   * `ServiceRejectedError` (other 4xx); `ServiceResponseError` (a body that breaks the
   * contract); `ClientClosedError` after `close()`. `options` (snowflake only): a `layout`
   * the node serves, and on a layout with a gene field a `gene` or `geneFrom` (docs/client.md).
   */
  async next(scheme: IdScheme, options?: IdRequestOptions): Promise<string> {
    const ids = await this.batch(scheme, 1, options);
    return ids[0]!;
  }

  /**
   * `count` IDs of `scheme` (an integer in [0, 1,000,000]; 0 sends no request) in one request,
   * checked: each of the scheme, none repeated. The service refuses a count above its limit
   * (default 10000) with `ServiceRejectedError`. Rejects like {@link next}; `options` as
   * there, for every ID of the batch.
   */
  async batch(scheme: IdScheme, count: number, options?: IdRequestOptions): Promise<string[]> {
    if (!(ID_SCHEMES as readonly unknown[]).includes(scheme)) {
      const expected = `one of ${ID_SCHEMES.join(', ')}`;
      throw (typeof scheme === 'string' ? rangeError : typeError)('scheme', expected, scheme);
    }
    // The wire's bound: no node answers more (each caps it at its maxCount, 10000 by default).
    integer('count', count, 0, MAX_REQUEST_COUNT);
    const query = idQuery(scheme, options);
    if (this.#closed) throw new ClientClosedError(`GET /v1/ids/${scheme}`);
    if (count === 0) return [];
    return this.#pool.request({
      method: 'GET',
      path: `/v1/ids/${scheme}?count=${count}${query}`,
      operation: `GET /v1/ids/${scheme}`,
      parse: idsParser(scheme, count),
    });
  }

  /**
   * The buffered sequence of `tag` (1 to `MAX_TAG_LENGTH`, 128, characters: the wire
   * contract's; the service checks the rest), the same object for the same tag. Nothing is fetched until its first use.
   * Throws `TypeError`/`RangeError` for a bad tag. After `close()` it returns a closed sequence.
   */
  sequence(tag: string): ClientSequence {
    let seq = this.#sequences.get(tag);
    if (seq !== undefined) return seq;
    if (typeof tag !== 'string') throw typeError('tag', 'a string', tag);
    if (tag.length === 0 || tag.length > MAX_TAG_LENGTH) {
      throw rangeError('tag', `a string of 1 to ${MAX_TAG_LENGTH} characters`, tag);
    }
    const path = `/v1/sequences/${encodeURIComponent(tag)}/segments?size=`;
    const operation = `POST /v1/sequences/${tag}/segments`;
    const source = (size: number, after: bigint) =>
      this.#pool.request({
        method: 'POST',
        path: `${path}${size}`,
        operation,
        parse: segmentParser(tag, after),
      });
    seq = new ClientSequence(tag, source, this.#options.segmentSize, this.#options.prefetchAt);
    if (this.#closed) seq.close();
    this.#sequences.set(tag, seq);
    return seq;
  }

  /**
   * The latest hybrid logical clock timestamp (`formatHlc` text) this client saw in a
   * service's `IdForge-HLC` answer header, or null. It is sent with every request, so `hlc`
   * IDs from any node sort after every ID this client saw minted before (docs/hlc.md).
   */
  get hlc(): string | null {
    return this.#pool.hlc;
  }

  /**
   * Merges a timestamp learned elsewhere (a message from another process: its `formatHlc`
   * text) into what the client forwards; the later one is kept. Throws `RangeError` for text
   * that is not an HLC timestamp.
   */
  observeHlc(timestamp: string): void {
    if (!this.#pool.observeHlc(timestamp)) {
      throw rangeError(
        'observeHlc timestamp',
        'an HLC timestamp like 0193e0c1a2b4-0000',
        timestamp,
      );
    }
  }

  /** The servers' state and counters. */
  stats(): ClientStats {
    return { servers: this.#pool.stats() };
  }

  /**
   * Stops all work: requests in flight are aborted (their calls reject with
   * `ClientClosedError`), buffered sequence numbers are dropped (never handed out again), and
   * later calls reject with `ClientClosedError`. Idempotent. The client's only timer, a
   * sequence's back-off after a failed fetch, is unref'd while no call waits on it, so an
   * unclosed idle client does not keep a process alive either.
   */
  close(): void {
    this.#closed = true;
    this.#pool.close();
    for (const seq of this.#sequences.values()) seq.close();
  }
}

/**
 * A client of the idforge service over `options.urls` (see {@link ClientOptions} and
 * docs/client.md). Validates every option: `TypeError`/`RangeError` "createClient
 * options.NAME: expected X, got Y". Sends nothing until the first call.
 */
export function createClient(options: ClientOptions): IdforgeClient {
  return new IdforgeClient(options);
}
