// Starts and stops the project's own server instances (scripts/services/*.sh) for fault tests.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { dropNamespaces, type ServerName } from './namespaces.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

export interface OwnServer {
  start(): Promise<void>;
  /**
   * Stops it; `crash` kills it without a clean shutdown; `wipe` then deletes its data
   * directory (the next start is an empty server).
   */
  stop(crash?: boolean, wipe?: boolean): Promise<void>;
}

/**
 * `service` is the script name under scripts/services/ (redis, postgres, etcd); `startArgs`
 * go to every start (redis: `--no-persist`); `env` is added to the environment of every call,
 * which the server started inherits (libfaketime's, test/helpers/faketime.ts).
 */
export function ownServer(
  service: string,
  port: number,
  startArgs: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): OwnServer {
  const script = fileURLToPath(new URL(`../../scripts/services/${service}.sh`, import.meta.url));
  const call = async (...args: string[]) => {
    await run('bash', [script, ...args, '--port', String(port)], {
      timeout: 120_000,
      env: { ...process.env, ...env },
    });
  };
  // etcd listens on a second port for its peers: one from the OS too, chosen at the first start.
  let peer: Promise<string[]> | undefined;
  const peerArgs = () => {
    if (service !== 'etcd') return Promise.resolve([]);
    peer ??= freePort().then((p) => ['--peer-port', String(p)]);
    return peer;
  };
  return {
    start: async () => call('start', ...startArgs, ...(await peerArgs())),
    stop: (crash = false, wipe = false) =>
      call('stop', ...(crash && service !== 'etcd' ? ['--kill'] : []), ...(wipe ? ['--wipe'] : [])),
  };
}

/**
 * In the calling describe(): `server` started before its tests; after them the namespaces of
 * `urls` dropped on it, then the server stopped (stopped also when the drop fails).
 */
export function ownServerSuite(server: OwnServer, backend: ServerName, urls: readonly string[]) {
  before(() => server.start());
  after(async () => {
    try {
      await dropNamespaces(backend, urls);
    } finally {
      await server.stop();
    }
  });
}

/**
 * `n` distinct TCP ports on 127.0.0.1 that the OS has just handed out and are free again: for
 * servers of the test's own, so two test files (or two checkouts) running at once never meet
 * on a port. All are held until the last is known, so the OS cannot hand one out twice.
 */
export async function freePorts(n: number): Promise<number[]> {
  const probes = Array.from({ length: n }, () => createServer());
  const ports = await Promise.all(
    probes.map(
      (probe) =>
        new Promise<number>((resolve, reject) => {
          probe.once('error', reject);
          probe.listen(0, '127.0.0.1', () => {
            const address = probe.address();
            resolve(typeof address === 'object' && address !== null ? address.port : 0);
          });
        }),
    ),
  );
  await Promise.all(probes.map((probe) => new Promise((r) => probe.close(r))));
  return ports;
}

/** One port as {@link freePorts} gives them. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/**
 * SIGSTOPs process `pid` and resolves once every thread of it is stopped (Linux's /proc), so
 * a test that then asks the frozen server something knows it cannot answer: a signal reaches
 * a thread running on another core, or one waiting for a busy core, only a moment later, and a
 * request sent in that moment could still be served.
 */
export async function freeze(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const states = () =>
    readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    });
  await waitFor(() => states().every((s) => s === 'T' || s === 't'), `process ${pid} stopped`);
}
