/**
 * What the service and its client agree on, written once: @idforge/server answers with it,
 * idforge/client checks answers against it, and a client in another language can read it
 * here (docs/service.md has the routes). Constants only, and the list of schemes derived from
 * the registry (./schemes/registry.ts): a bundle that uses none of it carries nothing.
 */

import { INT64_MAX, UINT64_MAX } from './limits.js';
import { SCHEMES, type ServedScheme, servedNames } from './schemes/registry.js';

/** A scheme the service issues: the registry's schemes with a service part. */
export type ServiceScheme = ServedScheme;

/** The schemes the service issues (`GET /v1/ids/{scheme}`), in registry order (the docs'). */
export const SERVICE_SCHEMES: readonly ServiceScheme[] = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ servedNames(SCHEMES) as ServiceScheme[],
);

/**
 * The header that carries a hybrid logical clock both ways (docs/hlc.md), as node's http
 * spells header names (lowercase): the client sends the latest it saw, every node answers with
 * its own, so HLC IDs from any node sort after what the client observed before asking.
 */
export const HLC_HEADER = 'idforge-hlc';

/**
 * The longest tag of a sequence, in UTF-16 code units: every store's tag column is 128
 * characters wide, and the service's routes take no longer one. idforge/sequences' `assertTag`
 * holds the whole rule; the client checks this length before it sends a tag.
 */
export const MAX_TAG_LENGTH = 128;

/**
 * The largest number any sequence hands out, 2^63 - 1: every store keeps it in a signed 64-bit
 * column, counter or sequence (BIGINT, Redis integers, PostgreSQL sequences), and the service
 * sends it as a decimal string. A sequence that reaches it fails with `SequenceExhaustedError`;
 * it never wraps.
 */
export const MAX_SEQUENCE_VALUE = INT64_MAX;

/**
 * A block of sequence numbers [first, last], both inclusive, owned by whoever took it: what a
 * segment store hands a node, what a node hands a client (`POST /v1/sequences/{tag}/segments`,
 * with `first` and `last` as decimal strings), and what a buffer holds.
 */
export interface NumberRange {
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * The largest `count` of one request for IDs or sequence numbers that any node may be
 * configured to answer (the service's `maxCount` is at most this; default 10,000), and so the
 * largest the client sends.
 */
export const MAX_REQUEST_COUNT = 1_000_000;

/**
 * The largest `geneFrom` (`GET /v1/ids/snowflake?geneFrom=ID`): a 64-bit ID, 2^64 - 1, sent
 * as 1 to 20 decimal digits. Above it the service answers 400 `IDF_INVALID_ID`; the client
 * refuses it before sending.
 */
export const MAX_GENE_FROM = UINT64_MAX;

/**
 * Every failure the service answers (the Leaf routes excepted, which answer in text): a
 * stable code (docs/errors.md for the library's, docs/service.md for the service's own) and a
 * message naming the cause and the fix.
 */
export interface ServiceErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/** `GET /v1/ids/{scheme}` and `GET /v1/sequences/{tag}`: the IDs or numbers, as strings. */
export interface IdBatchBody {
  readonly ids: readonly string[];
}

/**
 * `POST /v1/sequences/{tag}/segments`: the block [first, last] of `tag` that the caller alone
 * owns, both ends decimal strings (at most {@link MAX_SEQUENCE_VALUE}).
 */
export interface SegmentBody {
  readonly tag: string;
  readonly first: string;
  readonly last: string;
}
