/**
 * Request and response JSON schemas, shared by validation, serialization and the OpenAPI
 * document. 64-bit IDs and sequence numbers are decimal strings, never JSON numbers.
 */

import { INSPECT_SCHEMES } from 'idforge';
import { MAX_TAG_LENGTH } from 'idforge/sequences';
import { SERVICE_SCHEMES, type ServiceScheme } from 'idforge/wire';

/**
 * The longest path parameter, in characters once percent-decoded (the router's limit): the
 * longest tag. Every other parameter (a scheme, an ID to inspect) is shorter.
 */
export const MAX_PARAM_LENGTH = MAX_TAG_LENGTH;

/** The schemes the service issues: the wire contract's list, shared with idforge/client. */
export const SCHEMES = SERVICE_SCHEMES;
export type Scheme = ServiceScheme;

export const errorSchema = {
  $id: 'idforgeError',
  type: 'object',
  description:
    'Every failure: a stable code (docs/errors.md, docs/service.md) and a message naming the cause and the fix',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
} as const;

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { $ref: 'idforgeError#' }]));

const decimal = {
  type: 'string',
  pattern: '^[0-9]+$',
  description: 'a decimal integer (64-bit: a string, never a JSON number)',
};

export const idList = {
  type: 'object',
  properties: { ids: { type: 'array', items: { type: 'string' } } },
  required: ['ids'],
} as const;

/** The numbers of a sequence: `formatted` and `period` for a formatted tag only. */
export const sequenceNumbers = {
  type: 'object',
  properties: {
    ids: { type: 'array', items: { type: 'string' } },
    formatted: { type: 'array', items: { type: 'string' } },
    period: { type: 'string', description: "'' (never reset), YYYY, YYYY-MM or YYYY-MM-DD" },
  },
  required: ['ids'],
} as const;

const count = (max: number) => ({ type: 'integer', minimum: 1, maximum: max, default: 1 });

export function idsSchema(maxCount: number, layouts: readonly string[]) {
  return {
    summary: 'Issue IDs of a scheme',
    description:
      'count IDs in one answer: {"ids":[...]}, or one per line with Accept: text/plain. Snowflake and HLC IDs are decimal strings. On a layout with a gene field (gene-8), gene or geneFrom gives every Snowflake ID of the answer that gene; without, each ID gets a random one. With hlc on, the IdForge-HLC request header (the latest HLC the caller saw) is merged first, and the answer carries this node\'s.',
    tags: ['ids'],
    params: {
      type: 'object',
      properties: { scheme: { type: 'string', enum: SCHEMES } },
      required: ['scheme'],
    },
    querystring: {
      type: 'object',
      properties: {
        count: count(maxCount),
        layout: { type: 'string', enum: layouts },
        gene: {
          type: 'integer',
          minimum: 0,
          maximum: Number.MAX_SAFE_INTEGER,
          description: 'snowflake on a layout with a gene field: the gene of every ID',
        },
        geneFrom: {
          type: 'string',
          pattern: '^[0-9]{1,20}$',
          description:
            'snowflake on a layout with a gene field: take the gene from this 64-bit ID (decimal), e.g. the user of an order',
        },
      },
      additionalProperties: false,
    },
    response: { 200: idList, ...errors(400, 401, 403, 429, 503) },
  };
}

const tagParam = {
  type: 'object',
  properties: { tag: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH } },
  required: ['tag'],
} as const;

export function sequenceSchema(maxCount: number) {
  return {
    summary: 'Numbers from a central sequence',
    description:
      "count numbers of the tag, increasing, from this node's double-buffered segments; unique across every node sharing the segment store. A formatted tag (idforge seq create --format) answers the numbers of the current period (this node's clock decides it) in ids, the same numbers as the format prints them in formatted, and the period's key in period; with Accept: text/plain, the formatted numbers one per line.",
    tags: ['sequences'],
    params: tagParam,
    querystring: {
      type: 'object',
      properties: { count: count(maxCount) },
      additionalProperties: false,
    },
    response: { 200: sequenceNumbers, ...errors(400, 401, 403, 404, 429, 503) },
  };
}

export const segmentBody = {
  type: 'object',
  properties: { tag: { type: 'string' }, first: decimal, last: decimal },
  required: ['tag', 'first', 'last'],
} as const;

export function segmentSchema(maxSize: number) {
  return {
    summary: 'Hand a whole segment to a client',
    description:
      'A block [first, last] the caller alone owns and serves locally; at least size numbers (the stored step when larger). Blocks never overlap across nodes, clients or restarts.',
    tags: ['sequences'],
    params: tagParam,
    querystring: {
      type: 'object',
      properties: { size: { type: 'integer', minimum: 1, maximum: maxSize } },
      additionalProperties: false,
    },
    response: { 200: segmentBody, ...errors(400, 401, 403, 404, 429, 503) },
  };
}

const bufferState = {
  type: ['object', 'null'],
  properties: {
    current: {
      type: ['object', 'null'],
      properties: { first: decimal, last: decimal, next: decimal },
    },
    next: { type: ['object', 'null'], properties: { first: decimal, last: decimal } },
    loading: { type: 'boolean' },
    step: { type: 'integer' },
  },
} as const;

export const tagState = {
  type: 'object',
  properties: {
    tag: { type: 'string' },
    maxId: decimal,
    step: { type: 'integer' },
    description: { type: 'string' },
    updatedAtMs: { type: 'integer' },
    buffer: bufferState,
  },
  required: ['tag', 'maxId', 'step'],
} as const;

export const createTagSchema = {
  summary: 'Create a sequence tag (admin)',
  tags: ['admin'],
  params: tagParam,
  body: {
    type: 'object',
    properties: {
      step: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1, default: 1000 },
      start: { ...decimal, description: 'first number (default 1)' },
      description: { type: 'string', maxLength: 1000 },
      format: {
        type: 'string',
        maxLength: 100,
        description:
          'a formatted tag: business numbers such as INV-{yyyy}-{mm}-{n:6} ({n36:6}: base 36), stored with the tag (docs/business-numbers.md)',
      },
      reset: { type: 'string', enum: ['never', 'daily', 'monthly', 'yearly'] },
      timeZone: {
        type: 'string',
        maxLength: 64,
        description: 'IANA time zone of the periods (default UTC)',
      },
      prefix: { type: 'string', maxLength: 32 },
    },
    additionalProperties: false,
  },
  response: { 201: tagState, ...errors(400, 401, 403, 404, 409, 503) },
} as const;

export const setStepSchema = {
  summary: "Change a tag's step (admin)",
  tags: ['admin'],
  params: tagParam,
  body: {
    type: 'object',
    properties: { step: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 } },
    required: ['step'],
    additionalProperties: false,
  },
  response: { 200: tagState, ...errors(400, 401, 403, 404, 503) },
} as const;

export const listTagsSchema = {
  summary: 'List tags with their buffer state in this node (admin)',
  tags: ['admin'],
  response: {
    200: {
      type: 'object',
      properties: { tags: { type: 'array', items: tagState } },
      required: ['tags'],
    },
    ...errors(400, 401, 403, 404, 503),
  },
} as const;

export const listLeasesSchema = {
  summary: 'List worker-ID leases in the lease store (admin)',
  tags: ['admin'],
  response: {
    200: {
      type: 'object',
      properties: {
        leases: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              workerId: { type: 'integer' },
              instanceId: { type: 'string' },
              token: {
                type: ['string', 'null'],
                description: 'the token a lease was taken with through the service; null: direct',
              },
              host: { type: 'string' },
              pid: { type: 'integer' },
              startedAtMs: { type: 'integer' },
              expiresAtMs: { type: 'integer' },
              markMs: { type: ['integer', 'null'] },
              self: { type: 'boolean' },
            },
          },
        },
      },
      required: ['leases'],
    },
    ...errors(401, 403, 503),
  },
} as const;

export const inspectSchema = {
  summary: 'Decode an ID (what `idforge inspect --json` prints)',
  tags: ['ids'],
  params: {
    type: 'object',
    properties: { id: { type: 'string', minLength: 1, maxLength: MAX_PARAM_LENGTH } },
    required: ['id'],
  },
  querystring: {
    type: 'object',
    properties: {
      scheme: {
        type: 'string',
        enum: [...INSPECT_SCHEMES],
      },
      layout: { type: 'string', maxLength: 64 },
    },
    additionalProperties: false,
  },
  response: {
    200: {
      type: 'object',
      properties: {
        input: { type: 'string' },
        scheme: { type: 'string' },
        value: { type: 'string' },
        hex: { type: 'string' },
        special: { type: 'string' },
        version: { type: 'integer' },
        variant: { type: 'string' },
        layout: { type: 'string' },
        unixMs: { type: 'number' },
        timestamp: { type: 'string' },
        fields: { type: 'object', additionalProperties: { type: 'integer' } },
      },
    },
    ...errors(400, 401),
  },
} as const;

/**
 * A text field with no control character: a NUL is refused by PostgreSQL's text, a newline
 * forges a log line. A value against it is refused in words ({@link PRINTABLE_WORDS}), not
 * with the pattern.
 */
export const PRINTABLE_PATTERN = '^[^\\u0000-\\u001f\\u007f]*$';
export const PRINTABLE_WORDS = 'must contain no control character (U+0000 to U+001F, U+007F)';
