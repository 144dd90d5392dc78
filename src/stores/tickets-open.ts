/**
 * Opens ticket servers by URL, importing the driver lazily: `mysql://` or `mariadb://` → a
 * MariaDB/MySQL ticket server, `postgres://` or `postgresql://` → a PostgreSQL one. Each URL
 * may carry `?namespace=NAME` (MySQL: the database; PostgreSQL: the schema).
 */
import type { TicketServer } from '../sequences/ports.js';
import type { PlannableTicketServer } from './ticket-common.js';
import { redactUrl, storeScheme } from './url.js';

export type { PlannableTicketServer } from './ticket-common.js';

/** Options of {@link openTicketServer}. */
export interface TicketServerOptions {
  /** Give up connecting after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Give up on a statement after this many ms. Default: connectTimeoutMs. */
  readonly queryTimeoutMs?: number;
}

/**
 * Opens one ticket server and checks it answers. Throws `RangeError` for an unknown scheme or
 * a malformed URL; rejects with `StoreUnavailableError` when the server cannot be reached.
 */
export async function openTicketServer(
  url: string,
  options: TicketServerOptions = {},
): Promise<PlannableTicketServer> {
  const scheme = storeScheme(url);
  if (scheme === 'mysql' || scheme === 'mariadb') {
    const { MysqlTicketServer } = await import('./mysql/ticket-server.js');
    return MysqlTicketServer.open(url, options);
  }
  if (scheme === 'postgres') {
    const { PostgresTicketServer } = await import('./postgres/ticket-server.js');
    return PostgresTicketServer.open(url, options);
  }
  throw new RangeError(
    `ticket server URL: expected mysql://... or postgres://..., got "${scheme}" in ${redactUrl(url)}`,
  );
}

/**
 * Opens every server of a list, in order. Rejects with the first failure after closing the
 * servers already opened; a list of several down servers names the first.
 */
export async function openTicketServers(
  urls: readonly string[],
  options: TicketServerOptions = {},
): Promise<PlannableTicketServer[]> {
  const opened: PlannableTicketServer[] = [];
  try {
    for (const url of urls) opened.push(await openTicketServer(url, options));
    return opened;
  } catch (e) {
    await Promise.all(opened.map((s) => s.close()));
    throw e;
  }
}

/**
 * A ticket server that connects at its first call instead of now, and again at the next call
 * after a failed connect: for a client that must start while one of its servers is down (the
 * client fails over; see TicketClient). Throws `RangeError` for a malformed URL at once.
 */
export function lazyTicketServer(url: string, options: TicketServerOptions = {}): TicketServer {
  const scheme = storeScheme(url);
  if (scheme !== 'mysql' && scheme !== 'mariadb' && scheme !== 'postgres') {
    throw new RangeError(
      `ticket server URL: expected mysql://... or postgres://..., got "${scheme}" in ${redactUrl(url)}`,
    );
  }
  let opening: Promise<PlannableTicketServer> | null = null;
  const server = () => {
    if (opening === null) {
      opening = openTicketServer(url, options);
      opening.catch(() => {
        opening = null;
      });
    }
    return opening;
  };
  return {
    backend: scheme === 'postgres' ? 'postgres' : 'mysql',
    address: redactUrl(url),
    setup: async (name, increment, offset) => (await server()).setup(name, increment, offset),
    next: async (name) => (await server()).next(name),
    close: async () => {
      const s = opening;
      opening = null;
      if (s !== null) await (await s.catch(() => null))?.close();
    },
  };
}

/** Closes servers, never rejecting. */
export async function closeTicketServers(servers: readonly TicketServer[]): Promise<void> {
  await Promise.all(servers.map((s) => s.close().catch(() => {})));
}

/**
 * Sets `name` up on `servers` (in plan order): increment `increment` (default: the number of
 * servers) and offsets 1..N, with every server's next ticket above every ticket any of them has
 * issued (the floor), so that re-planning (adding a server, changing the increment) or
 * replacing a wiped server never reissues a ticket. Run it with every ticket client stopped:
 * clients keep the settings they read at their first ticket. Rejects with
 * `StoreUnavailableError` when any server is unreachable (all must answer to know the floor).
 * Resolves to the floor used.
 */
export async function setupTicketServers(
  servers: readonly PlannableTicketServer[],
  name: string,
  increment = servers.length,
): Promise<bigint> {
  if (servers.length === 0) throw new RangeError('servers: expected at least one, got none');
  if (increment < servers.length) {
    throw new RangeError(
      `increment: expected at least ${servers.length} (the servers), got ${increment}`,
    );
  }
  let floor = 0n;
  for (const s of servers) {
    const high = await s.high(name);
    if (high > floor) floor = high;
  }
  for (let i = 0; i < servers.length; i++) await servers[i]!.setup(name, increment, i + 1, floor);
  return floor;
}
