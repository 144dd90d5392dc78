// The multi-process segment test on postgres (the shared server, a fresh namespace, dropped after).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { segmentFaultSuite } from './segments.js';

const urls: string[] = [];
const skip = await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port);
after(() => (skip === false ? dropNamespaces('postgres', urls) : undefined));

segmentFaultSuite('postgres', {
  url: () => {
    urls.push(freshNamespaceUrl('postgres', 'segprocs'));
    return urls.at(-1)!;
  },
  skip,
});
