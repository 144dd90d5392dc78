// Crash/restart cycles with rewound clocks on the embedded SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { markRestartSuite } from './mark-restart.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-restart-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

markRestartSuite('sqlite', {
  url: () => `sqlite:${join(dir, `restart-${n++}.db`)}`,
  ttlMs: 1500,
  cycles: 6,
});
