/**
 * A check that the service's address can be bound, made before any store is opened, so that a
 * port in use (or a host that is not this machine's) fails the start without creating a
 * store file or tables, and without leasing a worker ID (issue 20).
 */
import { createServer } from 'node:net';

/**
 * Binds `host:port` once and closes it again. Resolves when the address can be bound; rejects
 * with the listen error (`EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`, ...) as `listen` would. Port
 * 0 checks the host only. The real listen can still lose a race for the port afterwards; it
 * rejects then in the same way.
 */
export function probeListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve());
    });
  });
}
