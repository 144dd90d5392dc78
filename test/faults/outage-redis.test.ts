// Redis down at start and while running: the project's own instance on a port from the OS (AOF on),
// with the negative control (the cheapest of the three to stop and start).
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { outageSuite } from './outage.js';

// The shared server's presence says whether Redis is installed here at all.
const skip = await serviceSkip('redis', '127.0.0.1', 6379);
const PORT = await freePort();

outageSuite({
  server: ownServer('redis', PORT),
  url: freshNamespaceUrl('redis', 'outage', `redis://127.0.0.1:${PORT}`),
  backend: 'redis',
  address: new RegExp(`127\\.0\\.0\\.1:${PORT}\\b`),
  skip,
  control: true,
});
