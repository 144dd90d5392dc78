// 8 processes x 200,000 numbers from one segment tag on the embedded SQLite store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sequenceFleetSuite } from './sequences.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-seq-sqlite-'));
sequenceFleetSuite('sqlite', { url: () => `sqlite:${join(dir, 'seq.db')}` });
