/**
 * Schemas of the worker-ID lease routes (routes/leases.ts): the LeaseStore port of idforge/coord
 * (ports.ts) as JSON. Times are unix ms, worker IDs and pids integers; the holder's instance ID
 * is the caller's (a UUID), to which the service adds the token's name in the store.
 */
import { PRINTABLE_PATTERN } from './schemas.js';

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { $ref: 'idforgeError#' }]));

/**
 * The longest lease any configuration lets a caller ask for: a day. The service's setting
 * leaseMaxTtlMs (default a minute, at most this) is the bound routes/leases.ts enforces.
 */
export const MAX_LEASE_TTL_MS = 86_400_000;
/** Worker IDs a request may name: 0 .. 2^31 - 1 (any layout's). */
const workerId = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;
const ms = { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 } as const;
const nullableMs = {
  type: ['integer', 'null'],
  minimum: 0,
  maximum: 8_640_000_000_000_000,
} as const;
const ttlMs = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_LEASE_TTL_MS,
  description: 'lease duration, ms; at most the setting leaseMaxTtlMs (400 past it)',
} as const;
/** A mark a caller sets: the service refuses one further ahead than it allows. */
const markAhead = (what: string, type: 'integer' | ['integer', 'null']) =>
  ({
    type,
    minimum: 0,
    maximum: 8_640_000_000_000_000,
    description: `${what}; at most the setting leaseMaxMarkAheadMs past the service's clock (400 past it)`,
  }) as const;
const instanceId = {
  type: 'string',
  pattern: '^[A-Za-z0-9._-]{1,64}$',
  description: 'the caller instance, unique per process start (a UUID)',
} as const;
const workerParams = {
  type: 'object',
  properties: { workerId },
  required: ['workerId'],
} as const;

const lease = {
  type: 'object',
  properties: {
    workerId,
    instanceId: { type: 'string' },
    previousMarkMs: { type: ['number', 'null'] },
    markMs: { type: 'number' },
  },
  required: ['workerId', 'instanceId', 'previousMarkMs', 'markMs'],
} as const;

const common = (summary: string) => ({ summary, tags: ['leases'] });

export const acquireLeaseSchema = {
  ...common('Lease the lowest free worker ID of [min, max] for ttlMs (null: all held)'),
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      min: workerId,
      max: workerId,
      ttlMs,
      instanceId,
      host: { type: 'string', minLength: 1, maxLength: 255, pattern: PRINTABLE_PATTERN },
      pid: { type: 'integer', minimum: 0, maximum: 4_294_967_295 },
      startedAtMs: ms,
      clockMs: ms,
      reserveMarkMs: markAhead('raise the mark to at least this, unix ms', 'integer'),
    },
    required: ['min', 'max', 'ttlMs', 'instanceId', 'host', 'pid', 'startedAtMs', 'clockMs'],
  },
  response: {
    200: {
      type: 'object',
      properties: { lease: { anyOf: [lease, { type: 'null' }] } },
      required: ['lease'],
    },
    ...errors(403, 503),
  },
} as const;

export const renewLeaseSchema = {
  ...common('Renew a lease and raise its mark, if this instance still holds it'),
  params: workerParams,
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      instanceId,
      ttlMs,
      reserveMarkMs: markAhead('raise the mark to at least this, unix ms', 'integer'),
      clockMs: ms,
      lastIssuedMs: nullableMs,
    },
    required: ['instanceId', 'ttlMs', 'reserveMarkMs', 'clockMs'],
  },
  response: {
    200: {
      type: 'object',
      properties: {
        held: { type: 'boolean' },
        claimants: { type: 'array', items: { type: 'string' } },
      },
      required: ['held', 'claimants'],
    },
    ...errors(403, 503),
  },
} as const;

export const releaseLeaseSchema = {
  ...common('End a lease, setting the mark to finalMarkMs (null: as it is). Idempotent'),
  params: workerParams,
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      instanceId,
      finalMarkMs: markAhead(
        'the mark to set, unix ms (null: as it is); never below the mark found at the grant',
        ['integer', 'null'],
      ),
    },
    required: ['instanceId'],
  },
  response: {
    200: { type: 'object', properties: { released: { type: 'boolean' } } },
    ...errors(403, 503),
  },
} as const;

const record = {
  type: 'object',
  properties: {
    workerId,
    instanceId: { type: 'string' },
    token: {
      type: ['string', 'null'],
      description:
        'the token that took the lease through the service ("" on an open service); null: a node on the store itself',
    },
    host: { type: 'string' },
    pid: { type: 'integer' },
    startedAtMs: { type: 'number' },
    expiresAtMs: { type: 'number' },
    markMs: { type: ['number', 'null'] },
    lastIssuedMs: { type: ['number', 'null'] },
    clockMs: { type: ['number', 'null'] },
    storeClockMs: { type: ['number', 'null'] },
  },
} as const;

export const listWorkerLeasesSchema = {
  ...common('Live worker-ID leases, by worker ID, with their holders'),
  response: {
    200: {
      type: 'object',
      properties: { leases: { type: 'array', items: record } },
      required: ['leases'],
    },
    ...errors(403, 503),
  },
} as const;

export const readMarkSchema = {
  ...common("A worker ID's clock high-water mark (null: never stored)"),
  params: workerParams,
  response: {
    200: {
      type: 'object',
      properties: { workerId, markMs: { type: ['number', 'null'] } },
      required: ['workerId', 'markMs'],
    },
    ...errors(403, 503),
  },
} as const;

export const storeClockSchema = {
  ...common("The lease store's clock, for the fleet clock check (null: the store has none)"),
  response: {
    200: {
      type: 'object',
      properties: { serverTimeMs: { type: ['number', 'null'] } },
      required: ['serverTimeMs'],
    },
    ...errors(403, 503),
  },
} as const;
