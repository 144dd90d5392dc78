// A segment store on the project's own MariaDB (port 13316), stopped and restarted.
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceOutageSuite } from './sequence-outage.js';

const skip = await serviceSkip('mariadb', '127.0.0.1', 3306);

sequenceOutageSuite({
  server: ownServer('mariadb', 13316),
  url: freshNamespaceUrl('mysql', 'seq_outage', 'mysql://root@127.0.0.1:13316/test'),
  backend: 'mysql',
  address: /127\.0\.0\.1:13316/,
  skip,
});
