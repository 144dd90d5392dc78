// PostgreSQL down at start and while running: the project's own cluster on a port from the OS.
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { outageSuite } from './outage.js';

// The shared server's presence says whether PostgreSQL is installed here at all.
const skip = await serviceSkip('postgres', '127.0.0.1', 5432);
const PORT = await freePort();

outageSuite({
  server: ownServer('postgres', PORT),
  url: freshNamespaceUrl('postgres', 'outage', `postgres://postgres@127.0.0.1:${PORT}/postgres`),
  backend: 'postgres',
  address: new RegExp(`127\\.0\\.0\\.1:${PORT}\\b`),
  skip,
});
