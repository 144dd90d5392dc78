/**
 * `@idforge/server/cli`: the store-backed commands (serve, migrate, leases, seq, ticket,
 * bench db, backfill) that the server package adds to the library's command line, and `run`,
 * the whole command line with them (the `idforge-server` bin; `idforge` finds them too when
 * this package is installed).
 */
import * as stores from '@idforge/stores';
import { type CliHost, type CliIo, type Command, run as runLibrary } from 'idforge/cli';
import { backfillCli } from './commands/backfill.js';
import { benchCli } from './commands/bench.js';
import { leasesCli } from './commands/leases.js';
import { migrateCli } from './commands/migrate.js';
import { seqCli } from './commands/seq.js';
import { serveCli } from './commands/serve.js';
import { ticketCli } from './commands/ticket.js';

/** The commands of this package, by name. */
export const serverCommands: Readonly<Record<string, Command>> = {
  serve: serveCli,
  leases: leasesCli,
  migrate: migrateCli,
  seq: seqCli,
  ticket: ticketCli,
  bench: benchCli,
  backfill: backfillCli,
};

/** The host that lends this package's commands and the stores to the library's `run`. */
export const serverHost: CliHost = {
  serverCommands: async () => serverCommands,
  stores: async () => stores,
};

/** The whole command line, the server's commands included; resolves to the exit code. */
export function run(argv: readonly string[], io: CliIo): Promise<number> {
  return runLibrary(argv, io, serverHost);
}
