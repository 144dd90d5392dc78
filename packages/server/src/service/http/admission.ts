/**
 * The admission of a request, defined once for both of the app's paths: the gate hook
 * (plugins/gate.ts) and the 404 handler answer what {@link refusal} refuses, the limits hook
 * (plugins/limits.ts) counts on {@link clientIp}; the fast lane (fast-lane.ts) calls the same
 * two and hands anything they refuse to Fastify, whose hooks then answer it. A check added
 * here is met on both paths; a hook the lane does not know refuses the app at start
 * (hot-chain.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { LoopLag } from '../metrics/lag.js';
import type { Drain } from './drain.js';

/**
 * Why the gate refuses a request before reading its token, in the order it checks: the
 * shutdown's 503, an HTTP/1.1 request without a Host (Node's own refusal is an empty 400:
 * requireHostHeader is off in buildApp), a target that is not a path (`*`, a bare word: the
 * router would match it as one), and the event-loop guard's 503.
 */
export type Refusal = 'closing' | 'no-host' | 'not-a-path' | 'overloaded';

/**
 * The refusal of `raw` (whose first Host header is `host`), or null when it may go on.
 * `guard`: the event-loop guard when the route is guarded and the guard on, else null.
 */
export function refusal(
  drain: Drain,
  guard: LoopLag | null,
  raw: IncomingMessage,
  host: string | undefined,
): Refusal | null {
  if (drain.closing) return 'closing';
  if (host === undefined && raw.httpVersion === '1.1') return 'no-host';
  if (raw.url?.charCodeAt(0) !== 47) return 'not-a-path'; // '/'
  if (guard?.overloaded === true) return 'overloaded';
  return null;
}

/**
 * Fastify's `trustProxy`, which buildApp passes it: off, so that a client cannot pick its own
 * rate-limit key with an `X-Forwarded-For` header. Fastify's `req.ip` is then the socket's
 * address, which is what {@link clientIp} reads; a change of one is a change of both, here.
 */
export const TRUST_PROXY = false;

/**
 * The client's address a request without a token is counted on (and named in the 429): what
 * Fastify's `req.ip` is with {@link TRUST_PROXY}, read from the raw request, so that the
 * limits hook and the lane, which has no Fastify request, call the same function.
 */
export function clientIp(raw: IncomingMessage): string | undefined {
  return raw.socket.remoteAddress;
}
