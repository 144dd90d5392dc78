// The multi-process segment test on SQLite: one database file shared by 8 processes; with the
// negative control (the cheapest real store to run it on).
import { join } from 'node:path';
import { suiteTempDir } from '../helpers/temp.js';
import { segmentFaultSuite } from './segments.js';

const dir = suiteTempDir('idforge-segments-procs-');

let n = 0;
segmentFaultSuite('sqlite', {
  url: () => `sqlite:${join(dir, `segments-${n++}.db`)}`,
  control: true,
});
