// The DurableMarkStore contract on SQLite: one database file per store location.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { markStoreContract } from './mark-store.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-marks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

markStoreContract('sqlite', {
  url: (name) => `sqlite:${join(dir, `${name}.db`)}`,
  processes: true,
});
