// The multi-process segment test on SQLite: one database file shared by 8 processes; with the
// negative control (the cheapest real store to run it on).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { segmentFaultSuite } from './segments.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-segments-procs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
segmentFaultSuite('sqlite', {
  url: () => `sqlite:${join(dir, `segments-${n++}.db`)}`,
  control: true,
});
