// The multi-process lease tests on etcd (the shared server, a namespace per test).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { fleetSuite } from './fleet.js';

const urls: string[] = [];
const skip = await serviceSkip('etcd', SERVERS.etcd.host, SERVERS.etcd.port);
after(() => (skip ? undefined : dropNamespaces('etcd', urls)));

fleetSuite('etcd', {
  url: () => {
    urls.push(freshNamespaceUrl('etcd', 'fleet'));
    return urls.at(-1)!;
  },
  ttlMs: 2000,
  skip,
});
