// 8 processes x 200,000 numbers from one segment tag on MariaDB (shared server, own prefix).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { sequenceFleetSuite } from './sequences.js';

const urls: string[] = [];
const skip = await serviceSkip('mariadb', SERVERS.mysql.host, SERVERS.mysql.port);
after(() => (skip ? undefined : dropNamespaces('mysql', urls)));

sequenceFleetSuite('mysql', {
  url: () => {
    urls.push(freshNamespaceUrl('mysql', 'seq'));
    return urls.at(-1)!;
  },
  skip,
});
