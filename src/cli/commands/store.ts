/** `idforge migrate` and `idforge leases`: the store commands. */

import type { LeaseRecord } from '../../coord/index.js';
import { migrateStore, openLeaseStore, redactUrl } from '../../stores/index.js';
import { type CliIo, formatTable, UsageError } from '../io.js';

export const migrateHelp = `Usage: idforge migrate [--store URL]

Creates everything idforge keeps in the store, idempotently (running it again changes
nothing): worker-ID leases, marks and claims (sqlite, postgres, redis, etcd), segment tags
(sqlite, postgres, mysql) and Redis counters' durable marks (sqlite, postgres). Servers need
it before first use; the embedded SQLite store also creates its tables on first open.
  --store URL   sqlite:PATH (default: $IDFORGE_STORE, else sqlite:idforge.db),
                postgres://user@host:port/db, mysql://user@host:port/db, redis://host:port,
                etcd://host:port (?namespace=NAME keeps several fleets apart)
`;

export const leasesHelp = `Usage: idforge leases [--store URL] [--json]

Lists the live worker-ID leases of a store: worker ID, instance, host, pid, when the lease
expires, the worker ID's clock high-water mark and the holder's last issued tick.
  --store URL   as for idforge migrate
  --json        one JSON object per lease per line (times in unix ms)
`;

/** The default store: $IDFORGE_STORE, else the embedded SQLite file idforge.db. */
export const DEFAULT_STORE = 'sqlite:idforge.db';

/** --store URL, else $IDFORGE_STORE, else {@link DEFAULT_STORE}. */
export function storeUrl(values: { store?: unknown }): string {
  if (typeof values.store === 'string') return values.store;
  return process.env.IDFORGE_STORE || DEFAULT_STORE;
}

function noArgs(positionals: string[], command: string): void {
  if (positionals.length > 0) {
    throw new UsageError(`${command}: unexpected argument "${positionals[0]}"`);
  }
}

export async function migrateCommand(
  positionals: string[],
  values: { store?: unknown },
  io: CliIo,
): Promise<number> {
  noArgs(positionals, 'migrate');
  const url = storeUrl(values);
  const done = await migrateStore(url);
  io.stdout.write(`migrated ${redactUrl(url)}: ${done.join('; ')}\n`);
  return 0;
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

function table(rows: LeaseRecord[], now: number): string {
  const head = ['worker', 'instance', 'host', 'pid', 'expires in', 'mark', 'last issued'];
  const body = rows.map((r) => [
    String(r.workerId),
    r.instanceId,
    r.host,
    String(r.pid),
    `${((r.expiresAtMs - now) / 1000).toFixed(1)} s`,
    iso(r.markMs),
    iso(r.lastIssuedMs),
  ]);
  return formatTable(head, body);
}

export async function leasesCommand(
  positionals: string[],
  values: { store?: unknown; json?: unknown },
  io: CliIo,
): Promise<number> {
  noArgs(positionals, 'leases');
  const store = await openLeaseStore(storeUrl(values));
  try {
    const rows = await store.list();
    if (values.json === true) {
      for (const r of rows) io.stdout.write(`${JSON.stringify(r)}\n`);
    } else if (rows.length === 0) {
      io.stdout.write(`no live leases in ${store.address}\n`);
    } else {
      io.stdout.write(`${table(rows, Date.now())}\n`);
    }
  } finally {
    await store.close();
  }
  return 0;
}
