// Whether a real server is reachable: with IDFORGE_REQUIRE_SERVICES=1 (CI) a missing server
// fails the run; otherwise its tests skip with a one-line reason.
import { connect } from 'node:net';

export const requireServices = process.env.IDFORGE_REQUIRE_SERVICES === '1';

/** Resolves true when a TCP connection to host:port opens within timeoutMs. */
export function reachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * A skip reason when the service is absent and not required; false when it is reachable.
 * Throws when it is absent and IDFORGE_REQUIRE_SERVICES=1.
 */
export async function serviceSkip(
  name: string,
  host: string,
  port: number,
): Promise<string | false> {
  if (await reachable(host, port)) return false;
  const reason = `${name} is not reachable at ${host}:${port}`;
  if (requireServices) throw new Error(`${reason}, and IDFORGE_REQUIRE_SERVICES=1 requires it`);
  return `${reason} (set IDFORGE_REQUIRE_SERVICES=1 to make this a failure)`;
}
