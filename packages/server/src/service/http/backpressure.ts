/**
 * Bounded memory per connection (docs/service.md, "Connections"): a client that sends requests
 * and never reads the answers must cost the server one answer, not one per request.
 *
 * Node's HTTP server parses every request of a chunk it has read (64 KiB of pipelined
 * `GET /v1/ids/snowflake?count=10000` is some 250 requests) and calls the request listener for
 * each at once; an answer to a request pipelined behind one still being sent is kept in memory
 * until its turn. Node stops reading the socket only after that chunk, and only when such
 * answers already exceed the socket's high-water mark: a chunk's 250 answers of 220 KB each
 * were 56 MB per connection, and a dozen connections took a 256 MB heap down.
 *
 * {@link paced} wraps the request listener (the fast lane's and Fastify's alike): a request
 * whose answer would wait behind another's (`res.socket` is null: Node has not given it the
 * socket yet) is handled only when Node hands it the socket, which is when the answer before it
 * has been written to the kernel. Meanwhile the socket is not read. So a connection holds at
 * most one answer in memory beyond what the kernel buffers, plus the requests of one chunk,
 * parsed and waiting (small objects, no answer built). A client that reads gets its pipelined
 * answers in order, one after another, as before; a request that is not pipelined (the common
 * case: one request per connection at a time) costs one field read.
 *
 * {@link watchStalls} bounds the time: a connection whose output has been pending, never
 * drained, for `writeTimeoutMs` is destroyed (its client is not reading; nothing can be
 * answered to it), and logged.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A socket of Node's HTTP server. `_paused` is the flag Node itself sets while it holds a
 * connection's reading for the same reason (lib/_http_server.js, parserOnIncoming): while it is
 * set, Node pauses the parser after the current chunk, and neither its 'resume' handler nor a
 * request body being read restarts reading. Setting it is the only way to hold reading that
 * Node's own resumptions (on 'drain', on a body read) honour.
 */
interface HttpSocket extends Socket {
  _paused?: boolean;
  parser?: { resume(): void } | null;
}

/** Requests of a connection waiting for the socket, once any has had to wait. */
const waiting = new WeakMap<Socket, { n: number }>();

/** `handle`, answering the requests of a connection one after another (see above). */
export function paced(handle: Listener): Listener {
  return (req, res) => {
    if (res.socket !== null) handle(req, res);
    else defer(req, res, handle);
  };
}

/** Holds `req` until Node gives its answer the socket, not reading the socket meanwhile. */
function defer(req: IncomingMessage, res: ServerResponse, handle: Listener): void {
  const socket = req.socket as HttpSocket;
  let w = waiting.get(socket);
  if (w === undefined) {
    w = { n: 0 };
    waiting.set(socket, w);
    // Node resumes a socket it paused once its own pending output drains, not knowing of the
    // requests waiting here: each such resumption would read one more chunk of requests.
    socket.on('resume', () => {
      if ((w as { n: number }).n > 0) hold(socket);
    });
  }
  w.n++;
  hold(socket);
  res.once('socket', () => {
    (w as { n: number }).n--;
    if (w.n === 0) release(socket);
    handle(req, res);
  });
}

function hold(socket: HttpSocket): void {
  socket._paused = true;
  socket.pause();
}

/** Reads again, as Node's socketOnDrain does after its own hold (lib/_http_server.js). */
function release(socket: HttpSocket): void {
  socket._paused = false;
  socket.parser?.resume();
  socket.resume();
}

/** How often stalls are looked for: a quarter of the timeout, at most a second apart. */
export function stallCheckMs(writeTimeoutMs: number): number {
  return Math.max(25, Math.min(1000, Math.floor(writeTimeoutMs / 4)));
}

/**
 * Destroys each connection of `server` whose output has been pending (written, not taken by
 * the kernel) for `writeTimeoutMs` without draining once, then calls `onStalled` with it. The
 * check runs every {@link stallCheckMs} while the server listens: a stall is cut within
 * `writeTimeoutMs` plus two checks.
 */
export function watchStalls(
  server: Server,
  writeTimeoutMs: number,
  onStalled: (socket: Socket, pendingBytes: number) => void,
): void {
  const sockets = new Set<Socket>();
  const since = new WeakMap<Socket, number>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('drain', () => since.delete(socket));
  });
  const check = () => {
    const now = performance.now();
    for (const socket of sockets) {
      const pending = socket.writableLength;
      const from = since.get(socket);
      if (pending === 0 || socket.destroyed) since.delete(socket);
      else if (from === undefined) since.set(socket, now);
      else if (now - from >= writeTimeoutMs) {
        socket.destroy();
        onStalled(socket, pending);
      }
    }
  };
  let timer: NodeJS.Timeout | null = null;
  server.on('listening', () => {
    timer = setInterval(check, stallCheckMs(writeTimeoutMs));
    timer.unref();
  });
  server.on('close', () => {
    if (timer !== null) clearInterval(timer);
  });
}
