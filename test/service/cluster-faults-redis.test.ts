// test-runner: heavy (three or four server processes under full load; scripts/run-tests.mjs)
// Cluster faults (./cluster-faults.ts: a node SIGKILLed, a node SIGSTOPped past its TTL) with
// Redis leases and MariaDB segments; each pairing is a file, so the pairings run at once.
import { clusterFaultSuite } from './cluster-faults.js';

await clusterFaultSuite('redis');
