// A segment store on the project's own PostgreSQL (on a port from the OS), stopped and restarted; with
// the negative control (a quicker server to start empty than MariaDB).
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceOutageSuite } from './sequence-outage.js';

const skip = await serviceSkip('postgres', '127.0.0.1', 5432);
const PORT = await freePort();

sequenceOutageSuite({
  server: ownServer('postgres', PORT),
  url: freshNamespaceUrl(
    'postgres',
    'seq_outage',
    `postgres://postgres@127.0.0.1:${PORT}/postgres`,
  ),
  backend: 'postgres',
  address: new RegExp(`127\\.0\\.0\\.1:${PORT}\\b`),
  skip,
  control: true,
});
