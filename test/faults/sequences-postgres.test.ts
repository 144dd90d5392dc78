// 8 processes x 200,000 numbers from one segment tag on PostgreSQL (shared server, own schema).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceFleetSuite } from './sequences.js';

const urls: string[] = [];
const skip = await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port);
after(() => (skip ? undefined : dropNamespaces('postgres', urls)));

sequenceFleetSuite('postgres', {
  url: () => {
    urls.push(freshNamespaceUrl('postgres', 'seq'));
    return urls.at(-1)!;
  },
  skip,
});
