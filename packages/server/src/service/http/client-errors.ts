/**
 * What the service answers when a request never reaches a route: bytes that are not HTTP,
 * headers over Node's limit, a request not received within requestTimeoutMs, a URL that does
 * not decode, a path parameter over the limit, no Host, an Expect it does not know. Each
 * answers in the documented shape `{"error":{"code","message"}}` with an idforge code, like
 * every other failure (docs/service.md, "Errors"), and none logs a byte of the request: Node
 * puts the raw bytes on the error (`rawPacket`, an Authorization header included), so the
 * error object itself is never logged, and the logger's `err` serializer keeps only its name,
 * code and message.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceMetrics } from '../metrics/metrics.js';
import { codeOfStatus, describeFailure, errorJson } from './errors.js';
import { MAX_PARAM_LENGTH } from './schemas.js';

/** Node's default --max-http-header-size, bytes. */
const MAX_HEADER_BYTES = 16_384;

/** A whole answer, written on the socket itself (there is no request object yet). */
function rawAnswer(status: number, message: string): string {
  const body = errorJson(codeOfStatus(status), message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Status and message of a connection-level failure, by Node's or llhttp's code. */
function clientFailure(code: string, requestTimeoutMs: number): [number, string] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [
      408,
      `the request was not received whole within requestTimeoutMs (${requestTimeoutMs} ms); send it at once`,
    ];
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return [
      431,
      `the request line and headers are over ${MAX_HEADER_BYTES} bytes; send fewer or shorter headers`,
    ];
  }
  // The code is Node's or llhttp's own (HPE_INVALID_METHOD...), never a byte of the request.
  const name = /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
  return [400, `malformed HTTP/1.1 request${name}; send a valid request line and headers`];
}

type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Calls `then` once no answer is pending on `socket`, unless one ends the connection: the
 * requests before the failure are answered first. Node gives the socket to the next pipelined
 * answer in its own 'finish' listener, which runs before this one, so the socket is looked at
 * again after each.
 */
function afterAnswers(socket: HttpSocket, then: () => void): void {
  const res = socket._httpMessage as (ServerResponse & { _last?: boolean }) | null | undefined;
  if (res == null) {
    then();
    return;
  }
  // An answer that ends the connection (Connection: close): nothing may follow it.
  if (res._last === true || socket.destroyed) return;
  res.once('finish', () => afterAnswers(socket, then));
}

/**
 * Fastify's `clientErrorHandler`: answers a connection-level failure in the documented shape,
 * then closes the connection. Requests received whole before the failure (a valid request,
 * then bytes that are not HTTP) are answered first: a route may already be minting for one,
 * and what is minted must be answered (the fast lane's answer is written at once, a route's
 * later). A failure after a last answer (`Connection: close`) is not answered: the connection
 * ends with that answer. Logs the failure's code at debug, never the error (it holds the
 * request's bytes).
 */
export function clientErrorHandler(requestTimeoutMs: number) {
  return function onClientError(
    this: FastifyInstance,
    error: Error & { code?: string },
    socket: Socket,
  ): void {
    // A reset connection is gone: nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const code = error.code ?? 'unknown';
    const [status, message] = clientFailure(code, requestTimeoutMs);
    this.log.debug({ status, code }, 'client error');
    const s = socket as HttpSocket;
    // A request not received whole (a trickled body) is the one that failed: answered now.
    if (s._httpMessage == null || s._httpMessage.req?.complete !== true) {
      if (socket.writable) socket.write(rawAnswer(status, message));
      socket.destroy();
      return;
    }
    afterAnswers(s, () => {
      // end, not destroy: the answers before may still be in the socket's buffer.
      if (socket.writable && !socket.writableEnded) socket.end(rawAnswer(status, message));
    });
  };
}

/**
 * Fastify's `frameworkErrors`: the router's refusals (a URL that does not decode, a parameter
 * over MAX_PARAM_LENGTH), which would otherwise answer in Fastify's shape and echo the raw URL.
 */
export function frameworkErrors(metrics: ServiceMetrics) {
  return (error: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    let status: number;
    let message: string;
    if (error.code === 'FST_ERR_BAD_URL') {
      status = 400;
      message = 'the URL does not decode: its path holds a malformed percent-encoding';
    } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      status = 414;
      message = `a path parameter is over ${MAX_PARAM_LENGTH} characters (the longest tag)`;
    } else {
      const f = describeFailure(error);
      status = f.status;
      message = f.message;
    }
    metrics.request('unmatched', req.method, status, reply.elapsedTime / 1000);
    reply.code(status).type('application/json; charset=utf-8');
    reply.send(errorJson(codeOfStatus(status), message));
  };
}

/** Node's `checkExpectation`: an Expect other than 100-continue, answered 417 in the shape. */
export function onUnknownExpectation(_req: IncomingMessage, res: ServerResponse): void {
  const body = errorJson(
    codeOfStatus(417),
    'unsupported Expect header: only "100-continue" is understood',
  );
  res.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/**
 * The logger's `err` serializer: an error's name, code, status and message (and stack), never
 * the fields Node and Fastify hang on it (rawPacket: the request's bytes).
 */
export function safeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const e = error as Error & { code?: unknown; statusCode?: unknown };
  return {
    type: e.name,
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.statusCode === 'number' ? { statusCode: e.statusCode } : {}),
    stack: e.stack,
  };
}

/** How often Node checks requestTimeoutMs: a quarter of it, at most a second, so it holds. */
export function checkingIntervalMs(requestTimeoutMs: number): number {
  return Math.max(25, Math.min(1000, Math.floor(requestTimeoutMs / 4)));
}
