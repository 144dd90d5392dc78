/**
 * Graceful shutdown of the HTTP side (docs/service.md, "Shutdown"):
 *
 *   begin      every request from now on, on any connection, new or kept alive, answers 503
 *              IDF_NOT_READY with `Retry-After: 1` and `Connection: close` (the gate, each
 *              route's first hook, and the 404 handler call {@link Drain.refuse}); responses
 *              to the requests in flight get `Connection: close`, so each connection ends
 *              after its current response
 *   grace      the listener stays open up to `graceMs`, or until no connection is open and
 *              none has arrived for QUIET_MS, so a client (or a load balancer that has not yet
 *              seen /readyz fail) gets that 503 instead of a refused or reset connection
 *   close      the listener closes; every connection then ends by itself: one that had a request
 *              ends after its answer (Connection: close), one left idle since the signal when its
 *              client closes it or sends a request (503, Connection: close); at the deadline
 *              whatever is left is closed
 *
 * Three races reset requests that had reached the server (issue 32, item 12), each avoided by
 * the order above. Node's `http.Server.close()` closes idle keep-alive connections at once, and
 * "idle" includes a connection just accepted whose request is still on its way: that client
 * got ECONNRESET (so did one whose next request on an old connection was on its way). A
 * listener closed while clients still connect resets the connections its accept queue holds
 * (the kernel completed their handshakes, the request was sent): closing it the moment no
 * connection was open, between one client's close and another's connect, did that. And with
 * `--processes`, the primary resets the connections it accepted and had not handed out when the
 * last process closes its listener. So the listener closes only after a quiet spell (no
 * connection opened for QUIET_MS), no connection is closed while it may be receiving, short of
 * the deadline, and `app.close()` runs last, on a server with no connection.
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

/**
 * How long no connection may have arrived before the listener closes early: clients that were
 * answered 503 have stopped connecting. A connection that arrives later finds the listener
 * closed (refused, never reset), unless it lands in the instant of the close.
 */
const QUIET_MS = 100;

/** The shutdown state of one app: installed by plugins/shutdown.ts, driven by server.ts. */
export class Drain {
  #closing = false;
  readonly #sockets = new Set<Socket>();
  /** When the last connection arrived (performance.now()). */
  #arrived = Number.NEGATIVE_INFINITY;
  /** Re-checks the wait in progress: a connection arrived or ended. */
  #changed: (() => void) | null = null;

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
      this.#arrived = performance.now();
      this.#changed?.();
      socket.once('close', () => {
        this.#sockets.delete(socket);
        this.#changed?.();
      });
    });
  }

  /** ms until the listener may close (no connection open, none arrived for QUIET_MS). */
  #quietIn = (): number =>
    this.#sockets.size > 0
      ? Number.POSITIVE_INFINITY
      : Math.max(0, this.#arrived + QUIET_MS - performance.now());

  /** 0 once no connection is open. */
  #emptyIn = (): number => (this.#sockets.size > 0 ? Number.POSITIVE_INFINITY : 0);

  /**
   * Resolves once `wait()` (ms until done: 0 done, Infinity not by time alone) says so, checked
   * again at each connection's arrival and end and when the time it named has passed; or after
   * `ms`.
   */
  #until(wait: () => number, ms: number): Promise<void> {
    const deadline = performance.now() + ms;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        clearTimeout(timer);
        const left = deadline - performance.now();
        const w = wait();
        if (w <= 0 || left <= 0) {
          this.#changed = null;
          resolve();
          return;
        }
        timer = setTimeout(check, Math.min(w, left));
      };
      this.#changed = check;
      check();
    });
  }

  /**
   * Resolves once the listener may close (see {@link #quietIn}) or at `until`
   * (performance.now() time). A connection whose handshake the kernel has completed while this
   * process was busy is accepted only in the event loop's next poll phase: on a loaded machine
   * the quiet spell can end with some waiting there, which closing would reset. So each time
   * the spell seems over, the poll phase runs (setImmediate comes after it) and the spell is
   * looked at again.
   */
  async #quiet(until: number): Promise<void> {
    for (;;) {
      await this.#until(this.#quietIn, until - performance.now());
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#quietIn() <= 0 || performance.now() >= until) return;
    }
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
      await this.#quiet(started + Math.min(graceMs, deadlineMs));
      // net.Server's close: stops accepting without http.Server's closing of idle
      // connections, which may be receiving a request (see the file's comment).
      Server.prototype.close.call(server);
      await this.#until(this.#emptyIn, deadlineMs - (performance.now() - started));
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
