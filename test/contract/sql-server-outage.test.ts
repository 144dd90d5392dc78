// The SQL stores' server outages and refused URLs (./sql-server-outage.ts), for every port it
// covers on every SQL server backend the registry lists for that port, each with its fixture
// (test/helpers/backend-fixtures.ts).
import {
  forEachSqlServer,
  LEASE_CALLS,
  MARK_CALLS,
  SEGMENT_CALLS,
  sqlServerOutageSuite,
} from './sql-server-outage.js';

await forEachSqlServer([LEASE_CALLS, SEGMENT_CALLS, MARK_CALLS], sqlServerOutageSuite);
