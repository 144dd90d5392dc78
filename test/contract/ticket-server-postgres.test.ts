// The TicketServer contract on PostgreSQL (IDFORGE_POSTGRES_URL, default the shared
// postgres://postgres@127.0.0.1:5432/test): one schema per namespace, dropped at the end.
import pg from 'pg';
import { PostgresTicketServer } from '../../packages/stores/src/postgres/ticket-server.js';
import { serviceSkip } from '../helpers/services.js';
import { ticketServerContract } from './ticket-server.js';

const URL_ = process.env.IDFORGE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const server = new URL(URL_);
const host = server.hostname;
const port = Number(server.port || 5432);
const skip = await serviceSkip('PostgreSQL', host, port);

ticketServerContract(
  {
    backend: 'postgres',
    host,
    port,
    url: (ns, p = port) => {
      const u = new URL(URL_);
      u.host = `${p === port ? host : '127.0.0.1'}:${p}`;
      u.searchParams.set('namespace', ns);
      return u.toString();
    },
    open: (url, options) => PostgresTicketServer.open(url, options),
    drop: async (namespaces) => {
      const client = new pg.Client({ connectionString: URL_ });
      await client.connect();
      for (const ns of namespaces) await client.query(`DROP SCHEMA IF EXISTS "${ns}" CASCADE`);
      await client.end();
    },
  },
  skip,
);
