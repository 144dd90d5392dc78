/**
 * `@idforge/server/cli`: the store-backed commands (serve, migrate, leases, seq, ticket,
 * bench db, backfill) that the server package adds to the library's command line, and `run`,
 * the whole command line with them (the `idforge-server` bin; `idforge` finds them too when
 * this package is installed).
 */
import * as stores from '@idforge/stores';
import { type CliHost, type CliIo, type Command, run as runLibrary } from 'idforge/cli';
import { backfillCommand, backfillHelp } from './commands/backfill.js';
import { benchCommand, benchHelp } from './commands/bench.js';
import { seqCommand, seqHelp } from './commands/seq.js';
import { serveCommand, serveHelp, serveOptions } from './commands/serve.js';
import { leasesCommand, leasesHelp, migrateCommand, migrateHelp } from './commands/store.js';
import { ticketCommand, ticketHelp } from './commands/ticket.js';

/** The commands of this package, by name. */
export const serverCommands: Readonly<Record<string, Command>> = {
  serve: {
    help: serveHelp,
    options: serveOptions(),
    run: (p, v, io) => serveCommand(p, v, io),
  },
  leases: {
    help: leasesHelp,
    options: { store: { type: 'string' }, json: { type: 'boolean' } },
    run: (p, v, io) => leasesCommand(p, v, io),
  },
  migrate: {
    help: migrateHelp,
    options: { store: { type: 'string' } },
    run: (p, v, io) => migrateCommand(p, v, io),
  },
  seq: {
    help: seqHelp,
    options: {
      store: { type: 'string' },
      step: { type: 'string' },
      start: { type: 'string' },
      description: { type: 'string' },
      count: { type: 'string', short: 'n' },
      json: { type: 'boolean' },
      marks: { type: 'string' },
    },
    run: (p, v, io) => seqCommand(p, v, io),
  },
  ticket: {
    help: ticketHelp,
    options: {
      servers: { type: 'string' },
      count: { type: 'string', short: 'n' },
      increment: { type: 'string' },
    },
    run: (p, v, io) => ticketCommand(p, v, io),
  },
  bench: {
    help: benchHelp,
    options: {
      store: { type: 'string' },
      rows: { type: 'string' },
      schemes: { type: 'string' },
      batch: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      force: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => benchCommand(p, v, io),
  },
  backfill: {
    help: backfillHelp,
    options: {
      store: { type: 'string' },
      table: { type: 'string' },
      column: { type: 'string' },
      scheme: { type: 'string' },
      'key-column': { type: 'string' },
      batch: { type: 'string' },
      'key-file': { type: 'string' },
      prefix: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => backfillCommand(p, v, io),
  },
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
