// Crash/restart cycles with rewound clocks when the mark lives in a local file (no
// coordination service): the file store.
import { join } from 'node:path';
import { suiteTempDir } from '../helpers/temp.js';
import { markRestartSuite } from './mark-restart.js';

const dir = suiteTempDir('idforge-restart-file-');
let n = 0;

markRestartSuite('file', {
  url: () => `file:${join(dir, `restart-${n++}.json`)}`,
  ttlMs: 1500,
  cycles: 6,
});
