// Several hosts of a SQL store racing on one location (./sql-server-races.ts), for every port it
// covers on every SQL server backend the registry lists for that port, each with its fixture
// (test/helpers/backend-fixtures.ts).
import { forEachSqlServer } from './sql-server-outage.js';
import { LEASE_RACES, SEGMENT_RACES, sqlServerRacesSuite } from './sql-server-races.js';

await forEachSqlServer([LEASE_RACES, SEGMENT_RACES], sqlServerRacesSuite);
