/**
 * Setting a ticket sequence up on its servers, whatever their backend: the planning rule that
 * keeps re-planning (adding a server, changing the increment) from ever reissuing a ticket.
 * Driver-free: the servers come from @idforge/stores (`openTicketServers`).
 */
import type { PlannableTicketServer } from './ports.js';

/**
 * Sets the ticket sequence `tag` up on `servers` (in plan order): increment `increment` (default: the number of
 * servers) and offsets 1..N, with every server's next ticket above every ticket any of them has
 * issued (the floor), so that re-planning (adding a server, changing the increment) or
 * replacing a wiped server never reissues a ticket. Run it with every ticket client stopped:
 * clients keep the settings they read at their first ticket. Rejects with
 * `StoreUnavailableError` when any server is unreachable (all must answer to know the floor).
 * Resolves to the floor used.
 */
export async function setupTicketServers(
  servers: readonly PlannableTicketServer[],
  tag: string,
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
    const high = await s.high(tag);
    if (high > floor) floor = high;
  }
  for (let i = 0; i < servers.length; i++) await servers[i]!.setup(tag, increment, i + 1, floor);
  return floor;
}
