// Redis down at start and while running: the project's own instance on port 16379 (AOF on),
// with the negative control (the cheapest of the three to stop and start).
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { outageSuite } from './outage.js';

// The shared server's presence says whether Redis is installed here at all.
const skip = await serviceSkip('redis', '127.0.0.1', 6379);

outageSuite({
  server: ownServer('redis', 16379),
  url: freshNamespaceUrl('redis', 'outage', 'redis://127.0.0.1:16379'),
  backend: 'redis',
  address: /127\.0\.0\.1:16379/,
  skip,
  control: true,
});
