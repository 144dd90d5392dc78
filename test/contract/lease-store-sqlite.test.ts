// The LeaseStore contract on SQLite: a fresh database file per test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLeaseStore } from '../../src/adapters/open.js';
import { leaseStoreContract } from './lease-store.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-sqlite-'));
let n = 0;

leaseStoreContract('sqlite', {
  open: () => openLeaseStore(`sqlite:${join(dir, `leases-${n++}.db`)}`),
  shortTtlMs: 500,
});
