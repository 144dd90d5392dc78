// test-runner: heavy (server processes under full load; scripts/run-tests.mjs)
// SIGTERM under keep-alive load with --processes 1 (./drain-suite.ts); the two process counts
// are a file each, so they run at once.
import { drainSuite } from './drain-suite.js';

drainSuite(1);
