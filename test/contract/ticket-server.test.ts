// The TicketServer contract (./ticket-server.ts) on every backend the registry lists for
// tickets, each opened by its registry opener on fresh locations of its fixture
// (test/helpers/backend-fixtures.ts). What is particular to one backend is in
// ticket-server-<backend>-specific.test.ts.
import { forEachBackend } from '../helpers/backend-fixtures.js';
import { ticketServerContract } from './ticket-server.js';

await forEachBackend('tickets', (backend, fx) => ticketServerContract(backend, fx));
