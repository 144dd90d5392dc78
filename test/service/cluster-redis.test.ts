// test-runner: heavy (three or four server processes under full load; scripts/run-tests.mjs)
// A cluster of three (./cluster.ts: 1,000,000 values from 3 nodes at once) with Redis leases, MariaDB segments;
// each pairing is a file, so the pairings run at once.
import { clusterSuite } from './cluster.js';

await clusterSuite('redis');
