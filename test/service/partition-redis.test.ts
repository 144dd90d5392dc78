// test-runner: heavy (three or four server processes under full load; scripts/run-tests.mjs)
// A node cut off from its Redis lease store (./partition.ts); each store is a file, so
// the stores run at once.
import { partitionSuite } from './partition.js';

await partitionSuite('redis');
