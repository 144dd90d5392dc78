/**
 * Graceful shutdown of the HTTP side (docs/service.md, "Shutdown"):
 *
 *   begin      every request from now on, on any connection, new or kept alive, answers 503
 *              IDF_NOT_READY with `Retry-After: 1` and `Connection: close` (the gate, each
 *              route's first hook, and the 404 handler call {@link Drain.refuse}); responses
 *              to the requests in flight get `Connection: close`, so each connection ends
 *              after its current response
 *   grace      the listener stays open up to `graceMs`, or until no connection is left, so a
 *              client (or a load balancer that has not yet seen /readyz fail) gets that 503
 *              instead of a refused or reset connection
 *   close      the listener closes; connections still idle are closed (their clients sent
 *              nothing during the grace); requests in flight finish, until the deadline, after
 *              which every connection is closed
 *
 * Node's `http.Server.close()` closes idle keep-alive connections at once (since Node 19): a
 * client that had just written its next request on one got ECONNRESET. And a listener closed
 * while clients still connect resets the connections waiting in its accept queue. Both are
 * avoided here by the order above; `app.close()` runs last, on a server with no connection.
 *
 * Nothing here runs per request while the node serves: the check is one field read in the
 * route's existing first hook, and the in-flight responses are found through their sockets
 * when the drain begins, rather than by global onRequest and onSend hooks on every request.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ErrorCode } from 'idforge';
import { errorJson, statusOf } from './errors.js';

/** The answer to every request once the drain has begun. */
const SHUTTING_DOWN = errorJson(
  ErrorCode.NOT_READY,
  'the node is shutting down; retry on another node',
);

const drains = new WeakMap<FastifyInstance, Drain>();

/** How a shutdown went, for the log. */
export interface DrainReport {
  /** Connections still open at the deadline, closed by force. */
  readonly forced: number;
  readonly ms: number;
}

/** The shutdown state of one app: installed by plugins/shutdown.ts, driven by server.ts. */
export class Drain {
  #closing = false;
  readonly #sockets = new Set<Socket>();
  #empty: (() => void) | null = null;

  /** Whether shutdown has begun. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Open connections of the listening server. */
  get connections(): number {
    return this.#sockets.size;
  }

  /** Answers `reply` with the shutdown's 503 (call when {@link closing}). */
  refuse(reply: FastifyReply): void {
    reply
      .code(statusOf(ErrorCode.NOT_READY))
      .header('retry-after', '1')
      .header('connection', 'close')
      .type('application/json; charset=utf-8')
      .send(SHUTTING_DOWN);
  }

  /** @internal Tracks `app`'s connections and its close. */
  install(app: FastifyInstance): void {
    // An embedder's app.close() without drain() still answers in the documented shape.
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
    app.server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        if (this.#sockets.size === 0) this.#empty?.();
      });
    });
  }

  /** Resolves when no connection is open, or after `ms`. */
  #untilEmpty(ms: number): Promise<void> {
    if (this.#sockets.size === 0 || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#empty = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#empty = done;
    });
  }

  /**
   * Drains and closes `app` (see the file's comment): resolves once every connection has
   * ended and `app.close()` has run, at most `deadlineMs` after the call plus app.close()'s
   * own time. Idempotent only through the caller (server.ts calls it once).
   */
  async drain(app: FastifyInstance, graceMs: number, deadlineMs: number): Promise<DrainReport> {
    const started = performance.now();
    this.#closing = true;
    for (const socket of this.#sockets) {
      // The response in progress on the connection, if any: once it is sent, the connection
      // ends (Node closes a connection after a response that says Connection: close).
      const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (res != null && !res.headersSent) res.setHeader('connection', 'close');
    }
    const server = app.server;
    if (server.listening) {
      await this.#untilEmpty(Math.min(graceMs, deadlineMs));
      // net.Server's close: stops accepting without http.Server's closing of idle
      // connections, which is done next, after the grace, on connections that stayed idle.
      Server.prototype.close.call(server);
      server.closeIdleConnections();
      await this.#untilEmpty(deadlineMs - (performance.now() - started));
    }
    const forced = this.#sockets.size;
    if (forced > 0) server.closeAllConnections();
    await app.close();
    return { forced, ms: Math.round(performance.now() - started) };
  }
}

/** Installs the drain on a new app (the shutdown plugin does, before any route). */
export function installDrain(app: FastifyInstance): Drain {
  const drain = new Drain();
  drain.install(app);
  drains.set(app, drain);
  return drain;
}

/** The app's drain (every app from buildApp has one). */
export function drainOf(app: FastifyInstance): Drain | undefined {
  return drains.get(app);
}
