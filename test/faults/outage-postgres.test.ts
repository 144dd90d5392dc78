// PostgreSQL down at start and while running: the project's own cluster on port 15432.
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { outageSuite } from './outage.js';

// The shared server's presence says whether PostgreSQL is installed here at all.
const skip = await serviceSkip('postgres', '127.0.0.1', 5432);

outageSuite({
  server: ownServer('postgres', 15432),
  url: freshNamespaceUrl('postgres', 'outage', 'postgres://postgres@127.0.0.1:15432/postgres'),
  backend: 'postgres',
  address: /127\.0\.0\.1:15432/,
  skip,
});
