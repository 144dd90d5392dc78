/** `idforge leases`: the live worker-ID leases of a store. */

import { openLeaseStore } from '@idforge/stores';
import {
  type CliIo,
  type Command,
  formatTable,
  noArgs,
  type Options,
  type OptionValues,
  STORE_HELP,
  storeUrl,
} from 'idforge/cli';
import type { LeaseRecord } from 'idforge/coord';

export const leasesHelp = `Usage: idforge leases [--store URL] [--json]

Lists the live worker-ID leases of a store: worker ID, instance, host, pid, when the lease
expires, the worker ID's clock high-water mark and the holder's last issued tick.

Options:
${STORE_HELP}  --json            one JSON array of the leases ([] when there is none; times in unix ms)
`;

const leasesOptions = {
  store: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

export type LeasesValues = OptionValues<typeof leasesOptions>;

/** `idforge leases [--store URL] [--json]`. */
export const leasesCli: Command<typeof leasesOptions> = {
  summary: ['leases', 'list the live worker-ID leases of a store, with their marks'],
  help: leasesHelp,
  options: leasesOptions,
  run: leasesCommand,
};

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
  values: LeasesValues,
  io: CliIo,
): Promise<number> {
  noArgs(positionals);
  // Read-only: a missing sqlite:/file: store is an error, never a new empty file.
  const store = await openLeaseStore(storeUrl(values, io), { create: false });
  try {
    const rows = await store.list();
    if (values.json === true) {
      io.stdout.write(`${JSON.stringify(rows)}\n`);
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
