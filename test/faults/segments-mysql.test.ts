// The multi-process segment test on mysql (the shared server, a fresh namespace, dropped after).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { segmentFaultSuite } from './segments.js';

const urls: string[] = [];
const skip = await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port);
after(() => (skip === false ? dropNamespaces('mysql', urls) : undefined));

segmentFaultSuite('mysql', {
  url: () => {
    urls.push(freshNamespaceUrl('mysql', 'segprocs'));
    return urls.at(-1)!;
  },
  skip,
});
