// A segment store on the project's own PostgreSQL (port 15433), stopped and restarted; with
// the negative control (a quicker server to start empty than MariaDB).
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceOutageSuite } from './sequence-outage.js';

const skip = await serviceSkip('postgres', '127.0.0.1', 5432);

sequenceOutageSuite({
  server: ownServer('postgres', 15433),
  url: freshNamespaceUrl('postgres', 'seq_outage', 'postgres://postgres@127.0.0.1:15433/postgres'),
  backend: 'postgres',
  address: /127\.0\.0\.1:15433/,
  skip,
  control: true,
});
