// Crash/restart cycles with rewound clocks on the embedded SQLite store.
import { join } from 'node:path';
import { suiteTempDir } from '../helpers/temp.js';
import { markRestartSuite } from './mark-restart.js';

const dir = suiteTempDir('idforge-restart-sqlite-');
let n = 0;

markRestartSuite('sqlite', {
  url: () => `sqlite:${join(dir, `restart-${n++}.db`)}`,
  ttlMs: 1500,
  cycles: 6,
});
