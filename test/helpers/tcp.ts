// TCP stand-ins for a server that is down, silent, or stops answering mid-session, and a
// plain web server where an idforge service was expected.

import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';

export interface Stand {
  readonly port: number;
  close(): Promise<void>;
}

/** A port on which nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** A server that accepts connections and never answers. */
export async function silentServer(): Promise<Stand> {
  const sockets: Socket[] = [];
  const s = createServer((sock) => sockets.push(sock));
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as { port: number }).port,
    async close() {
      for (const sock of sockets) sock.destroy();
      await new Promise((resolve) => s.close(resolve));
    },
  };
}

/** A proxy to host:port that can stop forwarding in both directions (a server that hangs). */
export async function stallableProxy(
  host: string,
  port: number,
): Promise<Stand & { stall(): void }> {
  const sockets: Socket[] = [];
  let stalled = false;
  const s = createServer((down) => {
    const up = connect(port, host);
    sockets.push(down, up);
    for (const sock of [down, up]) sock.on('error', () => {});
    down.pipe(up);
    up.pipe(down);
    if (stalled) down.pause();
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as { port: number }).port,
    stall() {
      stalled = true;
      for (const sock of sockets) {
        sock.unpipe();
        sock.pause();
      }
    },
    async close() {
      for (const sock of sockets) sock.destroy();
      await new Promise((resolve) => s.close(resolve));
    },
  };
}

/**
 * A plain web server, not idforge: every request is answered `status` with `body` (what a
 * default nginx page, a wrong base path or a proxy's login gives a client).
 */
export async function plainWebServer(
  status: number,
  body: string,
  type = 'text/html',
): Promise<Stand & { readonly requests: () => number }> {
  let requests = 0;
  const s = createHttpServer((_req, res) => {
    requests++;
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as { port: number }).port,
    requests: () => requests,
    async close() {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    },
  };
}
