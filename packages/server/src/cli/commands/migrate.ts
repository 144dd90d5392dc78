/** `idforge migrate`: creates what idforge keeps in a store. */

import { migrateStore, redactUrl } from '@idforge/stores';
import {
  type CliIo,
  type Command,
  noArgs,
  type Options,
  type OptionValues,
  STORE_HELP,
  storeUrl,
} from 'idforge/cli';

export const migrateHelp = `Usage: idforge migrate [--store URL]

Creates everything idforge keeps in the store, idempotently (running it again changes
nothing): worker-ID leases, marks and claims (sqlite, file, postgres, redis, etcd), segment tags
(sqlite, postgres, mysql) and Redis counters' durable marks (sqlite, postgres). Servers need
it before first use; the embedded SQLite store also creates its tables on first open.

Options:
${STORE_HELP}`;

const migrateOptions = { store: { type: 'string' } } as const satisfies Options;

export type MigrateValues = OptionValues<typeof migrateOptions>;

/** `idforge migrate [--store URL]`. */
export const migrateCli: Command<typeof migrateOptions> = {
  summary: ['migrate', 'create what idforge needs in a store (--store URL; idempotent)'],
  help: migrateHelp,
  options: migrateOptions,
  run: migrateCommand,
};

export async function migrateCommand(
  positionals: string[],
  values: MigrateValues,
  io: CliIo,
): Promise<number> {
  noArgs(positionals);
  const url = storeUrl(values, io);
  const done = await migrateStore(url);
  io.stdout.write(`migrated ${redactUrl(url)}: ${done.join('; ')}\n`);
  return 0;
}
