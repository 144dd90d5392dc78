/**
 * The idforge command line as a function: `run(argv, io)` resolves to the exit code and never
 * ends the process itself, so tests drive it in-process. Exit codes: 0 success, 1 an input was
 * invalid or an operation failed, 2 a usage mistake.
 */
import { IdforgeError } from '../core/index.js';
import { closest, type Options, parseCommandLine } from './args.js';
import { adviseCommand, adviseHelp } from './commands/advise.js';
import { backfillCommand, backfillHelp } from './commands/backfill.js';
import { benchCommand, benchHelp } from './commands/bench.js';
import { convertCommand, convertHelp } from './commands/convert.js';
import { genCommand, genHelp } from './commands/gen.js';
import { inspectCommand, inspectHelp } from './commands/inspect.js';
import { layoutsCommand, layoutsHelp } from './commands/layouts.js';
import { planCommand, planHelp } from './commands/plan.js';
import { publicCommand, publicHelp } from './commands/public.js';
import { seqCommand, seqHelp } from './commands/seq.js';
import { serveCommand, serveHelp, serveOptions } from './commands/serve.js';
import { shardCommand, shardHelp } from './commands/shard.js';
import { leasesCommand, leasesHelp, migrateCommand, migrateHelp } from './commands/store.js';
import { ticketCommand, ticketHelp } from './commands/ticket.js';
import { type CliIo, UsageError } from './io.js';

export type { CliIo } from './io.js';

export const VERSION = '0.1.0';

const mainHelp = `Usage: idforge <command> [options]

Unique identifiers for distributed systems: UUIDv4/v7, ULID, KSUID and Snowflake layouts.

Commands:
  gen <scheme>        generate IDs: uuidv4, uuidv7, ulid, ksuid, snowflake, typeid
  inspect <id...>     detect the scheme of IDs and decode them (time, version, fields)
  convert <id...>     convert between forms: v1/v6, MySQL swapped bytes, ULID/UUID, hex
  layouts             list the Snowflake layouts with their horizons and rate caps
  leases              list the live worker-ID leases of a store, with their marks
  migrate             create what idforge needs in a store (--store URL; idempotent)
  seq <sub> [tag]     segment sequences (create, next, show, step): numbers by blocks from a table
  ticket <sub> <tag>  Flickr ticket servers (setup, next) over --servers URL,URL
  plan --writers N    auto-increment offset/increment statements for N writers
  advise              recommend an ID scheme from a few questions (--writers N, --json)
  bench db            measure what each key scheme costs on your database (--store, --rows)
  backfill            add and fill a public ID column of a live table, online (--store, --table)
  public <sub>        opaque public IDs: keygen, retire, encode <id...>, decode <pid...>
  shard <id...>       salt bucket and composite key for range-partitioned stores (--buckets N)
  serve               run the ID service (HTTP API, Leaf routes, metrics, dashboard)

Options:
  -h, --help          help for idforge or a command (idforge help <command>)
  -v, --version       print the version

Every command with JSON output takes --json (gen: the same as --format json). A mistake in
the command line exits 2 with one line naming the command and the flag, and the closest flag
when one is close: idforge gen: unknown flag "--jsn" (did you mean --json?)

Examples:
  idforge gen uuidv7 -n 3
  idforge gen snowflake --node 7
  idforge gen snowflake --layout twitter-2010 --field datacenter=1 --field worker=3
  idforge gen snowflake --store sqlite:idforge.db -n 5
  idforge seq create orders --step 1000 && idforge seq next orders -n 3
  idforge plan --writers 3 --writer 2
  idforge inspect 01ARZ3NDEKTSV4RRFFQ69G5FAV
  idforge inspect 175928847299117063 --layout discord --json
  idforge convert c232ab00-9414-11ec-b3c8-9f6bdeced846 --to v6
`;

interface Command {
  help: string;
  options: Options;
  run(positionals: string[], values: Record<string, unknown>, io: CliIo): number | Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  gen: {
    help: genHelp,
    options: {
      count: { type: 'string', short: 'n' },
      json: { type: 'boolean' },
      format: { type: 'string' },
      layout: { type: 'string' },
      node: { type: 'string' },
      field: { type: 'string', multiple: true },
      'gene-from': { type: 'string' },
      gene: { type: 'string' },
      method: { type: 'string' },
      monotonic: { type: 'boolean' },
      prefix: { type: 'string' },
      store: { type: 'string' },
      workers: { type: 'string' },
      ttl: { type: 'string' },
      wait: { type: 'string' },
      'ttl-ms': { type: 'string' },
      'acquire-timeout-ms': { type: 'string' },
    },
    run: (p, v, io) => genCommand(p, v, io),
  },
  inspect: {
    help: inspectHelp,
    options: {
      scheme: { type: 'string' },
      layout: { type: 'string' },
      lenient: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => inspectCommand(p, v, io),
  },
  convert: {
    help: convertHelp,
    options: { to: { type: 'string' }, from: { type: 'string' }, prefix: { type: 'string' } },
    run: (p, v, io) => convertCommand(p, v, io),
  },
  leases: {
    help: leasesHelp,
    options: { store: { type: 'string' }, json: { type: 'boolean' } },
    run: (p, v, io) => leasesCommand(p, v, io),
  },
  migrate: {
    help: migrateHelp,
    options: { store: { type: 'string' } },
    run: (p, v, io) => migrateCommand(p, v, io),
  },
  seq: {
    help: seqHelp,
    options: {
      store: { type: 'string' },
      step: { type: 'string' },
      start: { type: 'string' },
      description: { type: 'string' },
      count: { type: 'string', short: 'n' },
      json: { type: 'boolean' },
      marks: { type: 'string' },
    },
    run: (p, v, io) => seqCommand(p, v, io),
  },
  ticket: {
    help: ticketHelp,
    options: {
      servers: { type: 'string' },
      count: { type: 'string', short: 'n' },
      increment: { type: 'string' },
    },
    run: (p, v, io) => ticketCommand(p, v, io),
  },
  plan: {
    help: planHelp,
    options: {
      writers: { type: 'string' },
      writer: { type: 'string' },
      dialect: { type: 'string' },
      increment: { type: 'string' },
      tag: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => planCommand(p, v, io),
  },
  advise: {
    help: adviseHelp,
    options: {
      writers: { type: 'string' },
      'key-size': { type: 'string' },
      'node-ids': { type: 'string' },
      public: { type: 'string' },
      partitioned: { type: 'string' },
      'gap-free': { type: 'string' },
      json: { type: 'boolean' },
      interactive: { type: 'boolean', short: 'i' },
    },
    run: (p, v, io) => adviseCommand(p, v, io),
  },
  bench: {
    help: benchHelp,
    options: {
      store: { type: 'string' },
      rows: { type: 'string' },
      schemes: { type: 'string' },
      batch: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      force: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => benchCommand(p, v, io),
  },
  backfill: {
    help: backfillHelp,
    options: {
      store: { type: 'string' },
      table: { type: 'string' },
      column: { type: 'string' },
      scheme: { type: 'string' },
      'key-column': { type: 'string' },
      batch: { type: 'string' },
      'key-file': { type: 'string' },
      prefix: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => backfillCommand(p, v, io),
  },
  public: {
    help: publicHelp,
    options: {
      out: { type: 'string' },
      'key-file': { type: 'string' },
      version: { type: 'string' },
      bytes: { type: 'string' },
      prefix: { type: 'string' },
      as: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: (p, v, io) => publicCommand(p, v, io),
  },
  shard: {
    help: shardHelp,
    options: { buckets: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' } },
    run: (p, v, io) => shardCommand(p, v, io),
  },
  serve: {
    help: serveHelp,
    options: serveOptions(),
    run: (p, v, io) => serveCommand(p, v, io),
  },
  layouts: {
    help: layoutsHelp,
    options: { json: { type: 'boolean' } },
    run: (p, v, io) => {
      if (p.length > 0) throw new UsageError(`unexpected argument "${p[0]}"`);
      return layoutsCommand(v, io, Date.now());
    },
  },
};

/** Runs the CLI with `argv` (without the node and script paths); resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    io.stdout.write(mainHelp);
    return name === undefined ? 2 : 0;
  }
  if (name === 'help' && rest[0] === undefined) {
    io.stdout.write(mainHelp);
    return 0;
  }
  if (name === '-v' || name === '--version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const topic = name === 'help' ? rest[0] : undefined;
  const command = commandOf(topic ?? name);
  try {
    if (command === undefined) throw unknownCommand(topic ?? name);
    if (name === 'help') {
      io.stdout.write(command.help);
      return 0;
    }
    const { values, positionals } = parseCommandLine(rest, command.options);
    if (values.help) {
      io.stdout.write(command.help);
      return 0;
    }
    return await command.run(positionals, values, io);
  } catch (e) {
    const cmd = command && name !== 'help' ? ` ${name}` : '';
    if (e instanceof UsageError || e instanceof TypeError || e instanceof RangeError) {
      io.stderr.write(
        `${prefixed(cmd, (e as Error).message)}\nRun "idforge${cmd} --help" for usage.\n`,
      );
      return 2;
    }
    if (e instanceof IdforgeError) {
      io.stderr.write(`${prefixed(cmd, e.message)} [${e.code}]\n`);
      return 1;
    }
    throw e;
  }
}

function commandOf(name: string | undefined): Command | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** A command (or top-level flag) not known, with the closest known one. */
function unknownCommand(name: string): UsageError {
  const flag = name.startsWith('-');
  const close = flag
    ? closest(name.replace(/^--?/, ''), ['help', 'version'])
    : closest(name, Object.keys(COMMANDS));
  const hint = close === undefined ? '' : ` (did you mean ${flag ? '--' : ''}${close}?)`;
  return new UsageError(`unknown ${flag ? 'flag' : 'command'} "${name}"${hint}`);
}

/**
 * `idforge <command>: message`, once: a message naming a subcommand ("seq create: expected a
 * tag") reads "idforge seq create: expected a tag", never "idforge seq: seq create: …".
 */
function prefixed(cmd: string, message: string): string {
  const name = cmd.trim();
  if (name !== '' && message.startsWith(`${name}: `)) return `idforge ${message}`;
  if (name !== '' && /^\S+ \S+: /.test(message) && message.startsWith(`${name} `)) {
    return `idforge ${message}`;
  }
  return `idforge${cmd}: ${message}`;
}
