// etcd down at start and while running: the project's own member on a port from the OS.
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { outageSuite } from './outage.js';

// The shared member's presence (scripts/services/etcd.sh start) says whether etcd is here.
const skip = await serviceSkip('etcd', '127.0.0.1', 2379);
const PORT = await freePort();

outageSuite({
  server: ownServer('etcd', PORT),
  url: freshNamespaceUrl('etcd', 'outage', `etcd://127.0.0.1:${PORT}`),
  backend: 'etcd',
  address: new RegExp(`127\\.0\\.0\\.1:${PORT}\\b`),
  skip,
});
