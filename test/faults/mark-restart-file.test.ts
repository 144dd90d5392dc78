// Crash/restart cycles with rewound clocks when the mark lives in a local file (no
// coordination service): the file store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { markRestartSuite } from './mark-restart.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-restart-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

markRestartSuite('file', {
  url: () => `file:${join(dir, `restart-${n++}.json`)}`,
  ttlMs: 1500,
  cycles: 6,
});
