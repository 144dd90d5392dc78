// The DurableMarkStore contract on SQLite: one database file per store location.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markStoreContract } from './mark-store.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-marks-'));

markStoreContract('sqlite', { url: (name) => `sqlite:${join(dir, `${name}.db`)}` });
