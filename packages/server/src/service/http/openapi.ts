/**
 * The OpenAPI document says what this node does: how each operation is secured on this
 * configuration, and every status it can answer. Added for the document only (the swagger
 * `transform`), so validation and serialization keep the routes' own schemas: every error body
 * is a string already, whatever status it has.
 */
import type { RouteOptions } from 'fastify';
import type { ServiceConfig } from '../config/config.js';
import type { Access } from '../deps.js';

/** A route's access: its config's, else `ops` for the API pages, else `ids`. */
export function routeAccess(route: { url: string; config?: unknown }): Access {
  const declared = (route.config as { access?: Access } | undefined)?.access;
  return declared ?? (route.url.startsWith('/docs') ? 'ops' : 'ids');
}

const retryAfter = {
  'retry-after': { type: 'integer', description: 'seconds to wait: 1' },
};
const error = (description: string, headers?: object) => ({
  description,
  $ref: 'idforgeError#',
  ...(headers === undefined ? {} : { headers }),
});
const text = (description: string) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});

const readiness = {
  type: 'object',
  properties: {
    ready: { type: 'boolean' },
    failing: { type: 'array', items: { type: 'string' } },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          ok: { type: 'boolean' },
          reason: { type: 'string' },
        },
      },
    },
  },
};

/** What a route answers beyond what its own schema says (routes answering in text, /readyz). */
const EXTRA: Readonly<Record<string, Readonly<Record<string, object>>>> = {
  'GET /healthz': {
    200: {
      description: 'the process answers',
      type: 'object',
      properties: { status: { type: 'string', enum: ['ok'] } },
    },
  },
  'GET /metrics': { 200: text('Prometheus text format') },
  'GET /v1/status': {
    200: { description: "this node's state (what the dashboard polls)", type: 'object' },
  },
  'GET /readyz': {
    200: { description: 'every check holds', ...readiness },
    503: {
      description:
        'a check fails (the readiness body, failing ones named), or the node is shutting down or overloaded (an error)',
      content: {
        'application/json': { schema: { oneOf: [readiness, { $ref: 'idforgeError#' }] } },
      },
      headers: retryAfter,
    },
  },
  'GET /api/snowflake/decode': {
    200: {
      description: "the ID decoded with this node's layout, with Leaf's workerId and sequenceId",
      type: 'object',
      properties: {
        id: { type: 'string' },
        layout: { type: 'string' },
        unixMs: { type: 'number' },
        timestamp: { type: 'string' },
        fields: { type: 'object', additionalProperties: { type: 'integer' } },
        workerId: { type: ['integer', 'null'] },
        sequenceId: { type: ['integer', 'null'] },
      },
    },
  },
  'GET /api/segment/get/:key': {
    403: text('the token may not use this tag: `IDF_FORBIDDEN: …` (Leaf answers in text)'),
    500: text('any failure of the sequence, an unknown tag included: `CODE: message`, as Leaf'),
  },
  'GET /api/snowflake/get/:key': {
    403: text('the token may not issue Snowflake IDs: `IDF_FORBIDDEN: …`'),
    500: text('any failure of the node: `CODE: message`, as Leaf'),
  },
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The error statuses any route may answer, by what applies to it. */
function errorResponses(
  route: RouteOptions,
  access: Access,
  config: ServiceConfig,
): Record<string, object> {
  const out: Record<string, object> = {
    400: error(
      'a bad request: a parameter, the URL, the request line or a header (IDF_BAD_REQUEST)',
    ),
    408: error('the request was not received whole within requestTimeoutMs (IDF_REQUEST_TIMEOUT)'),
    431: error('the headers are too large (IDF_BAD_REQUEST)'),
    500: error('an unexpected failure (IDF_INTERNAL); the server log has it'),
    503: error('not ready, store down, overloaded or shutting down; try another node', retryAfter),
  };
  if (route.url.includes(':'))
    out[414] = error('a path parameter over the longest tag (IDF_BAD_REQUEST)');
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (methods.some((m) => BODY_METHODS.has(m))) {
    out[413] = error('the body is over bodyLimit (IDF_BAD_REQUEST)');
    out[415] = error('the body is not JSON (IDF_BAD_REQUEST)');
  }
  // With no tokens configured, a token sent is still checked (an unknown one is a 401).
  if (access !== 'ops' || config.protectOps) {
    out[401] = error(
      'no token, a malformed Authorization header or an unknown token (IDF_UNAUTHORIZED)',
    );
  }
  if (access === 'admin') out[403] = error('not an admin token (IDF_FORBIDDEN)');
  // Every ID route refuses a token without the "ids" scope (a lease-only token), and the
  // routes that name a scheme or tag one not allowed it.
  if (access === 'ids' && config.tokens.length > 0) {
    out[403] = error(
      'the token has no "ids" scope, or may not use this scheme or tag (IDF_FORBIDDEN)',
    );
  }
  if (access === 'lease' && config.tokens.length > 0) {
    out[403] = error(
      'the token has no "lease" scope, asks outside its "workers" or holds its "maxLeases" (IDF_FORBIDDEN)',
    );
  }
  if (config.rateLimit > 0 && access !== 'ops') {
    out[429] = error("the token's requests per window are used up (IDF_RATE_LIMITED)", retryAfter);
  }
  return out;
}

/** What the lease routes bound, with this node's settings (docs/service.md, Leases over HTTP). */
const leaseBounds = (c: ServiceConfig) =>
  `Bounded by the service: ttlMs at most ${c.leaseMaxTtlMs} ms (setting leaseMaxTtlMs) and ` +
  `reserveMarkMs or finalMarkMs at most ${c.leaseMaxMarkAheadMs} ms past its clock (setting ` +
  'leaseMaxMarkAheadMs), else 400; a token\'s "workers" range and "maxLeases" count of ' +
  'live leases, else 403. A release never sets a mark below the one found at the grant.';

/** The swagger `transform`: security and every status, per operation, on this configuration. */
export function documentRoute(config: ServiceConfig) {
  return ({ schema, url, route }: { schema: unknown; url: string; route: RouteOptions }) => {
    const own = (schema ?? {}) as { hide?: boolean; response?: Record<string, object> };
    if (own.hide === true) return { schema: own, url };
    const access = routeAccess(route);
    const bearer =
      access === 'admin' ||
      ((access === 'ids' || access === 'lease') && config.tokens.length > 0) ||
      (access === 'ops' && config.protectOps);
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    // The route's own statuses first; the shared ones (the same error schema) bring their
    // description; the table last (what a route answers in text, or beside its schema).
    const response = {
      ...own.response,
      ...errorResponses(route, access, config),
      ...EXTRA[`${method} ${route.url}`],
    };
    const described = access === 'lease' ? { description: leaseBounds(config) } : {};
    return {
      schema: { ...own, ...described, security: bearer ? [{ bearer: [] }] : [], response },
      url,
    };
  };
}
