// 8 processes x 200,000 numbers from one Redis counter (INCRBY blocks through the double
// buffer), marks in a shared SQLite file: 0 duplicates, each process increasing.
import { join } from 'node:path';
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { suiteTempDir } from '../helpers/temp.js';
import { sequenceFleetSuite } from './sequences.js';

const urls: string[] = [];
const skip = await serviceSkip('redis', SERVERS.redis.host, SERVERS.redis.port);
after(() => (skip ? undefined : dropNamespaces('redis', urls)));
const dir = suiteTempDir('idforge-seq-redis-');

sequenceFleetSuite('redis', {
  url: () => {
    urls.push(freshNamespaceUrl('redis', 'seq'));
    return urls.at(-1)!;
  },
  marks: () => `sqlite:${join(dir, 'marks.db')}`,
  skip,
});
