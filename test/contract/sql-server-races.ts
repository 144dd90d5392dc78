// Several hosts, each with a pool of its own, on one location of a SQL server: four hosts racing
// on what the port hands out, and four migrating one namespace at once. One suite, run by
// ./sql-server-races.test.ts for every port below on every SQL server backend the registry lists
// for it (PostgreSQL leases and segments, MariaDB segments), each store opened by its registry
// opener on a fresh location of the backend's fixture (test/helpers/backend-fixtures.ts). One
// store's own concurrent calls over its pool are in the port's contract.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Lease, LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import type { SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import type { Backend } from '../../packages/stores/src/backend.js';
import type { BackendFixture } from '../helpers/backend-fixtures.js';
import { owner, request } from './lease-store.js';
import { assertContiguous } from './segment-store.js';
import {
  isSqlServer,
  LEASE_PORT,
  SEGMENT_PORT,
  type SqlPort,
  type SqlStore,
} from './sql-server-outage.js';

/**
 * The stores' timeouts (connect, pool wait and query alike). A race queues all its calls at
 * once, and they run one at a time on the location's lock (40 grants on the namespace's
 * advisory lock, 200 takes on one row): the last waits for a pooled connection and the lock
 * while all the others run, so its wait is the race's whole length. That was up to 2 s with the
 * machine busy (load ~18) and 4.3 s with six files of four-pool races at once, against the 5 s
 * the stores default to (3 s in the segment copies this suite replaced): a slow race failed as
 * an unavailable store, which is not what it checks. 20 s is over four times the longest seen.
 */
const TIMEOUT_MS = 20_000;

/** What the suite does with the stores of one port. */
export interface PortRaces<S extends SqlStore> extends SqlPort<S> {
  /** What the four hosts race on and get, after "four hosts (pools) racing" in the title. */
  readonly race: string;
  /** Races the four migrated hosts of one fresh location and checks what each got. */
  raceOn(hosts: readonly S[]): Promise<void>;
  /** Everything the store holds (leases, tags): none once it is migrated. */
  contents(store: S): Promise<readonly unknown[]>;
}

export const LEASE_RACES: PortRaces<LeaseStore> = {
  ...LEASE_PORT,
  race: 'for one range never share an ID',
  async raceOn(hosts) {
    const got = await Promise.all(
      Array.from({ length: 40 }, (_, i) => hosts[i % 4]!.acquire(request(owner(), 0, 31))),
    );
    const granted = got.filter((l): l is Lease => l !== null);
    assert.deepEqual(
      granted.map((l) => l.workerId).sort((x, y) => x - y),
      Array.from({ length: 32 }, (_, i) => i),
    );
    const listed = await hosts[0]!.list();
    assert.deepEqual(
      listed.map((r) => r.instanceId),
      granted.sort((x, y) => x.workerId - y.workerId).map((l) => l.instanceId),
    );
  },
  contents: (store) => store.list(),
};

export const SEGMENT_RACES: PortRaces<SegmentStore> = {
  ...SEGMENT_PORT,
  race: 'on one tag get disjoint, contiguous blocks',
  async raceOn(hosts) {
    await hosts[0]!.createTag('shared', { step: 3 });
    const got = await Promise.all(
      Array.from({ length: 200 }, (_, i) => hosts[i % 4]!.takeSegment('shared', 1 + (i % 5))),
    );
    const expected = got.reduce((sum, g) => sum + (g.last - g.first + 1n), 0n);
    assert.equal(assertContiguous(got, 1n), expected);
  },
  contents: (store) => store.listTags(),
};

/**
 * The suite for the stores of `races.port` on `backend`, a SQL server (isSqlServer), each
 * store opened with TIMEOUT_MS and closed when its test ends.
 */
export function sqlServerRacesSuite(
  backend: Backend,
  fx: BackendFixture,
  races: PortRaces<SqlStore>,
): void {
  const opener = races.opener(backend);
  assert.ok(isSqlServer(backend) && opener !== undefined, `${backend.name} ${races.port}`);
  /** A store of `url` (migrated unless `migrate` is false), closed when the test ends. */
  const open = async (url: string, migrate = true): Promise<SqlStore> => {
    const store = fx.keep(await opener(url, { connectTimeoutMs: TIMEOUT_MS }));
    if (migrate) await store.migrate();
    return store;
  };

  describe(`${backend.title} ${races.noun} store: several hosts on one location`, {
    skip: fx.skip,
  }, () => {
    test(`four hosts (pools) racing ${races.race}`, async () => {
      const url = fx.freshUrl('race');
      const hosts = [await open(url), await open(url), await open(url), await open(url)];
      await races.raceOn(hosts);
    });

    test('concurrent migrations of one namespace all succeed', async () => {
      const url = fx.freshUrl('race');
      const opened = await Promise.all(Array.from({ length: 4 }, () => open(url, false)));
      await Promise.all(opened.map((s) => s.migrate()));
      assert.deepEqual(await races.contents(opened[0]!), []);
    });
  });
}
