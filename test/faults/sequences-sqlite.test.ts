// 8 processes x 200,000 numbers from one segment tag on the embedded SQLite store, and the
// negative control (the cheapest real store to run it on).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { sequenceFleetSuite } from './sequences.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-seq-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
sequenceFleetSuite('sqlite', { url: () => `sqlite:${join(dir, `seq-${n++}.db`)}`, control: true });
