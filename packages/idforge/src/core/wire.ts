/**
 * What the service and its client agree on, written once: @idforge/server answers with it,
 * idforge/client checks answers against it, and a client in another language can read it
 * here (docs/service.md has the routes). Constants only: importing them costs a bundle nothing
 * else.
 */

/** The schemes the service issues (`GET /v1/ids/{scheme}`), in the order the docs list them. */
export const SERVICE_SCHEMES = ['uuidv4', 'uuidv7', 'ulid', 'ksuid', 'snowflake', 'hlc'] as const;
export type ServiceScheme = (typeof SERVICE_SCHEMES)[number];

/**
 * The header that carries a hybrid logical clock both ways (docs/hlc.md), as node's http
 * spells header names (lowercase): the client sends the latest it saw, every node answers with
 * its own, so HLC IDs from any node sort after what the client observed before asking.
 */
export const HLC_HEADER = 'idforge-hlc';

/**
 * The largest number any sequence hands out, 2^63 - 1: every store keeps it in a signed 64-bit
 * column, counter or sequence (BIGINT, Redis integers, PostgreSQL sequences), and the service
 * sends it as a decimal string. A sequence that reaches it fails with `SequenceExhaustedError`;
 * it never wraps.
 */
export const MAX_SEQUENCE_VALUE = (1n << 63n) - 1n;
