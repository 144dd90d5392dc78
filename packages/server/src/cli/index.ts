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

/** `idforge-server --help`: this bin's, not `idforge`'s (which tells to install this package). */
export const serverBinHelp = `Usage: idforge-server [command] [options]

The idforge ID service, and the commands that need a store. No command serves (options
alone too): \`idforge-server --port 9000\` is \`idforge-server serve --port 9000\`, and
\`npx @idforge/server\` serves on ./idforge.db at http://127.0.0.1:8080 (the dashboard at /,
the API's docs at /docs).

Commands:
  serve               run the ID service (the default): HTTP API, Leaf routes, metrics,
                      dashboard; idforge-server serve --help lists every setting
  migrate             create what idforge needs in a store (--store URL; idempotent)
  leases              list the live worker-ID leases of a store, with their marks
  seq <sub> [tag]     segment sequences (create, next, show, step): numbers by blocks from a table
  ticket <sub> <tag>  Flickr ticket servers (setup, next) over --servers URL,URL
  bench db            measure what each key scheme costs on your database (--store, --rows)
  backfill            add and fill a public ID column of a live table, online (--store, --table)
  version             print the version
  and every idforge command: gen, inspect, convert, layouts, plan, advise, public, shard, sql

Options:
  -h, --help          this help, or a command's (idforge-server help <command>)
  -v, --version       print the version

Examples:
  npx @idforge/server
  idforge-server --store postgres://idf@db/ids --migrate --port 8080
  idforge-server seq create orders --step 1000 && idforge-server seq next orders -n 3
  idforge-server gen snowflake --store sqlite:idforge.db -n 5
`;

/** The `idforge-server` bin's command line: its own help and name in messages. */
export function runServerBin(argv: readonly string[], io: CliIo): Promise<number> {
  return runLibrary(argv, io, {
    ...serverHost,
    bin: { name: 'idforge-server', help: serverBinHelp },
  });
}
