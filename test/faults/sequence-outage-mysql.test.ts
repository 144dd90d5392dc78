// A segment store on the project's own MariaDB (on a port from the OS), stopped and restarted.
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceOutageSuite } from './sequence-outage.js';

const skip = await serviceSkip('mariadb', '127.0.0.1', 3306);
const PORT = await freePort();

sequenceOutageSuite({
  server: ownServer('mariadb', PORT),
  url: freshNamespaceUrl('mysql', 'seq_outage', `mysql://root@127.0.0.1:${PORT}/test`),
  backend: 'mysql',
  address: new RegExp(`127\\.0\\.0\\.1:${PORT}\\b`),
  skip,
});
