// The multi-process lease tests on the embedded SQLite store (one file shared by processes),
// with the negative controls (the cheapest real store to run them on).
import { join } from 'node:path';
import { suiteTempDir } from '../helpers/temp.js';
import { fleetSuite } from './fleet.js';

const dir = suiteTempDir('idforge-fleet-sqlite-');
let n = 0;

fleetSuite('sqlite', {
  url: () => `sqlite:${join(dir, `fleet-${n++}.db`)}`,
  ttlMs: 2000,
  controls: true,
});
