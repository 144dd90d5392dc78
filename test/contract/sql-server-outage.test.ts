// The SQL stores' server outages and refused URLs (./sql-server-outage.ts), for every port it
// covers on every SQL server backend the registry lists for that port, each with its fixture
// (test/helpers/backend-fixtures.ts).
import { forEachBackend } from '../helpers/backend-fixtures.js';
import {
  isSqlServer,
  LEASE_CALLS,
  SEGMENT_CALLS,
  sqlServerOutageSuite,
} from './sql-server-outage.js';

await forEachBackend(
  'leases',
  (backend, fx) => sqlServerOutageSuite(backend, fx, LEASE_CALLS),
  isSqlServer,
);
await forEachBackend(
  'segments',
  (backend, fx) => sqlServerOutageSuite(backend, fx, SEGMENT_CALLS),
  isSqlServer,
);
