// The multi-process lease tests on postgres (the shared server, a namespace per test).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { fleetSuite } from './fleet.js';

const urls: string[] = [];
const skip = await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port);
after(() => (skip ? undefined : dropNamespaces('postgres', urls)));

fleetSuite('postgres', {
  url: () => {
    urls.push(freshNamespaceUrl('postgres', 'fleet'));
    return urls.at(-1)!;
  },
  ttlMs: 2000,
  skip,
});
