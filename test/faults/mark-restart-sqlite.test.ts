// Crash/restart cycles with rewound clocks on the embedded SQLite store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markRestartSuite } from './mark-restart.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-restart-sqlite-'));
let n = 0;

markRestartSuite('sqlite', {
  url: () => `sqlite:${join(dir, `restart-${n++}.db`)}`,
  ttlMs: 600,
  cycles: 20,
});
