// Crash/restart cycles with rewound clocks on PostgreSQL (the shared server, own namespace).
import { after } from 'node:test';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { markRestartSuite } from './mark-restart.js';

const urls: string[] = [];
const skip = await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port);
after(() => (skip ? undefined : dropNamespaces('postgres', urls)));

markRestartSuite('postgres', {
  url: () => {
    urls.push(freshNamespaceUrl('postgres', 'restart'));
    return urls.at(-1)!;
  },
  ttlMs: 1500,
  cycles: 6,
  skip,
});
