// Starts and stops the project's own server instances (scripts/services/*.sh) for fault tests.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

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
  return {
    start: () => call('start', ...startArgs),
    stop: (crash = false, wipe = false) =>
      call('stop', ...(crash && service !== 'etcd' ? ['--kill'] : []), ...(wipe ? ['--wipe'] : [])),
  };
}
