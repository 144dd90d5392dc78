/** `idforge ticket setup|next`: Flickr-style ticket servers (MariaDB/MySQL or PostgreSQL). */

import { closeTicketServers, lazyTicketServer, openTicketServers } from '@idforge/stores';
import {
  type CliIo,
  type Command,
  integer,
  LineWriter,
  type Options,
  type OptionValues,
  serverList,
  ticketTagArg,
  UsageError,
} from 'idforge/cli';
import { setupTicketServers, shortReason, TicketClient } from 'idforge/sequences';

export const ticketHelp = `Usage: idforge ticket <setup|next> <tag> --servers URL,URL [options]

Ticket servers (Flickr, 2010): each server hands out its own residue of one number space
(server i of N: i, i + N, i + 2N, ...), so N servers never issue the same number, and a
client asks them in turn and skips a server that is down. Numbers are unique; each server's
numbers increase, the merged stream does not (servers drift apart).

  ticket setup <tag> [--increment N]
                    create the sequence on every server (a table tickets_<tag> on MariaDB/
                    MySQL, a sequence on PostgreSQL) with increment N (default: the number of
                    servers) and offsets 1..N in list order. Idempotent. Changing the list
                    or the increment re-plans: every server then starts above the largest
                    ticket any of them issued. Every server must answer; stop the clients first.
  ticket next <tag> [-n COUNT]
                    print COUNT tickets (default 1), one per line, one round trip each, round
                    robin over the servers; a server that fails is skipped (the others serve)
                    and noted on stderr

Options:
  --servers URL,URL ticket servers in plan order (default: $IDFORGE_TICKET_SERVERS):
                    mysql://user@host:port/db or postgres://user@host:port/db
                    (?namespace=NAME: MySQL database / PostgreSQL schema of the sequences)
The servers must be durable (InnoDB, innodb_flush_log_at_trx_commit = 1; PostgreSQL fsync
and synchronous_commit on): see docs/sequences-tickets.md.
`;

const ticketOptions = {
  servers: { type: 'string' },
  count: { type: 'string', short: 'n' },
  increment: { type: 'string' },
} as const satisfies Options;

export type TicketValues = OptionValues<typeof ticketOptions>;

/** `idforge ticket <setup|next> <tag>`. */
export const ticketCli: Command<typeof ticketOptions> = {
  summary: ['ticket <sub> <tag>', 'Flickr ticket servers (setup, next) over --servers URL,URL'],
  help: ticketHelp,
  options: ticketOptions,
  run: ticketCommand,
};

/** The most tickets one `ticket next` prints (each is a round trip). */
const MAX_COUNT = 10_000_000;

function tagOf(rest: string[], sub: string): string {
  const [tag, extra] = rest;
  if (tag === undefined) throw new UsageError(`ticket ${sub}: expected a tag`);
  if (extra !== undefined) throw new UsageError(`ticket ${sub}: unexpected argument "${extra}"`);
  return ticketTagArg(tag, `ticket ${sub}`);
}

export async function ticketCommand(
  positionals: string[],
  values: TicketValues,
  io: CliIo,
): Promise<number> {
  const [sub, ...rest] = positionals;
  if (sub === 'setup') return ticketSetup(tagOf(rest, sub), values, io);
  if (sub === 'next') return ticketNext(tagOf(rest, sub), values, io);
  throw new UsageError(
    sub === undefined ? 'expected setup or next' : `unknown subcommand "${sub}"`,
  );
}

async function ticketSetup(name: string, values: TicketValues, io: CliIo): Promise<number> {
  if (values.count !== undefined) throw new UsageError('ticket setup: -n is for ticket next');
  const urls = serverList(values, io);
  const increment =
    values.increment === undefined
      ? urls.length
      : integer('--increment', values.increment, urls.length, 65_535);
  const servers = await openTicketServers(urls);
  try {
    const floor = await setupTicketServers(servers, name, increment);
    io.stdout.write(
      `set up ticket sequence "${name}" on ${servers.length} server(s): increment ${increment}` +
        `${floor > 0n ? `, every server above ${floor}` : ''}\n`,
    );
    servers.forEach((s, i) => {
      io.stdout.write(`  offset ${i + 1}  ${s.address}\n`);
    });
  } finally {
    await closeTicketServers(servers);
  }
  return 0;
}

async function ticketNext(name: string, values: TicketValues, io: CliIo): Promise<number> {
  if (values.increment !== undefined) {
    throw new UsageError('ticket next: --increment is for ticket setup');
  }
  const count = values.count === undefined ? 1 : integer('--count', values.count, 1, MAX_COUNT);
  const servers = serverList(values, io).map((u) => lazyTicketServer(u));
  const client = new TicketClient(servers, name, {
    onStateChange: (e) => {
      const why = e.error === undefined ? '' : ` (${shortReason(e.error)})`;
      io.stderr.write(
        e.state === 'down'
          ? `idforge ticket: ${e.address} is down${why}; using the other servers\n`
          : `idforge ticket: ${e.address} is back\n`,
      );
    },
  });
  try {
    const out = new LineWriter(io.stdout);
    for (let done = 0; done < count; ) {
      const batch = await client.nextBatch(Math.min(4096, count - done));
      done += batch.length;
      for (const t of batch) out.line(t.toString());
    }
    out.flush();
  } finally {
    await closeTicketServers(servers);
  }
  return 0;
}
