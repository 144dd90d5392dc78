// TCP stand-ins for a server that is down, silent, or stops answering mid-session, and a
// plain web server where an idforge service was expected.

import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/** Listens on 127.0.0.1, on a port the OS picks (never a fixed one); resolves with it. */
export async function listenLocal(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export interface Stand {
  readonly port: number;
  close(): Promise<void>;
}

/** A port on which nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  const port = await listenLocal(s);
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** A server that accepts connections and never answers (a port in use, too). */
export async function silentServer(): Promise<Stand> {
  const sockets: Socket[] = [];
  const s = createServer((sock) => sockets.push(sock));
  return {
    port: await listenLocal(s),
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
  return {
    port: await listenLocal(s),
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
  return {
    port: await listenLocal(s),
    requests: () => requests,
    async close() {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    },
  };
}
