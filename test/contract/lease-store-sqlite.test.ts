// The LeaseStore contract on SQLite: a fresh database file per test (the directory removed at
// the end); the "concurrent" test races separate processes on one file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { leaseStoreContract } from './lease-store.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshUrl = () => `sqlite:${join(dir, `leases-${n++}.db`)}`;

leaseStoreContract('sqlite', {
  open: () => openLeaseStore(freshUrl()),
  shortTtlMs: 500,
  processes: { freshUrl, open: (url) => openLeaseStore(url) },
});
