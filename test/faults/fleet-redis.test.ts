// The multi-process lease tests on redis (the shared server, a namespace per test).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { fleetSuite } from './fleet.js';

const urls: string[] = [];
const skip = await serviceSkip('redis', SERVERS.redis.host, SERVERS.redis.port);
after(() => (skip ? undefined : dropNamespaces('redis', urls)));

fleetSuite('redis', {
  url: () => {
    urls.push(freshNamespaceUrl('redis', 'fleet'));
    return urls.at(-1)!;
  },
  ttlMs: 2000,
  skip,
});
