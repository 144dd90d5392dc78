/**
 * `@idforge/server/cli`: the store-backed commands (serve, migrate, leases, seq, ticket,
 * bench db, backfill) that the server package adds to the library's command line, and `run`,
 * the whole command line with them (the `idforge-server` bin; `idforge` finds them too when
 * this package is installed).
 */
import * as stores from '@idforge/stores';
import {
  type CliHost,
  type CliIo,
  type Command,
  commandList,
  libraryCommands,
  run as runLibrary,
} from 'idforge/cli';
import { backfillCli } from './commands/backfill.js';
import { benchCli } from './commands/bench.js';
import { leasesCli } from './commands/leases.js';
import { migrateCli } from './commands/migrate.js';
import { seqCli } from './commands/seq.js';
import { serveCli } from './commands/serve.js';
import { ticketCli } from './commands/ticket.js';

/**
 * The commands of this package, by name, in the order the help lists them. A command is its
 * file in commands/ plus one line here: both bins' help and dispatch come from this table.
 */
export const serverCommands: Readonly<Record<string, Command>> = {
  serve: serveCli,
  migrate: migrateCli,
  leases: leasesCli,
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
${commandList(serverCommands)}
  version             print the version
  and every idforge command: ${Object.keys(libraryCommands).join(', ')}

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
