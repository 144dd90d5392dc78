// etcd down at start and while running: the project's own member on port 23790.
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { outageSuite } from './outage.js';

// The shared member's presence (scripts/services/etcd.sh start) says whether etcd is here.
const skip = await serviceSkip('etcd', '127.0.0.1', 2379);

outageSuite({
  server: ownServer('etcd', 23790),
  url: freshNamespaceUrl('etcd', 'outage', 'etcd://127.0.0.1:23790'),
  backend: 'etcd',
  address: /127\.0\.0\.1:23790/,
  skip,
});
