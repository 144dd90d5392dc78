// A segment store on the project's own PostgreSQL (port 15432), stopped and restarted.
import { ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceOutageSuite } from './sequence-outage.js';

const skip = await serviceSkip('postgres', '127.0.0.1', 5432);

sequenceOutageSuite({
  server: ownServer('postgres', 15433),
  url: 'postgres://postgres@127.0.0.1:15433/postgres?namespace=seq_outage',
  backend: 'postgres',
  address: /127\.0\.0\.1:15433/,
  skip,
});
