/**
 * The idforge command line as a function: `run(argv, io)` resolves to the exit code and never
 * ends the process itself, so tests drive it in-process. Exit codes: 0 success, 1 an input was
 * invalid or an operation failed, 2 a usage mistake.
 */
import { IdforgeError } from '../core/index.js';
import { closest, DEFAULT_STORE, parseCommandLine } from './args.js';
import { adviseCli } from './commands/advise.js';
import { convertCli } from './commands/convert.js';
import { genCli } from './commands/gen.js';
import { inspectCli } from './commands/inspect.js';
import { layoutsCli } from './commands/layouts.js';
import { planCli } from './commands/plan.js';
import { publicCli } from './commands/public.js';
import { shardCli } from './commands/shard.js';
import { sqlCli } from './commands/sql.js';
import {
  type CliHost,
  type Command,
  loadPackage,
  PackageMissingError,
  SERVER_COMMANDS,
  SERVER_PACKAGE,
} from './host.js';
import { type CliIo, UsageError } from './io.js';
import { VERSION } from './version.js';

export type { CliIo } from './io.js';

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
  sql                 SQL functions minting and decoding IDs inside PostgreSQL or MariaDB
                      (prints the SQL; --store URL --apply installs, --remove removes)
  serve               run the ID service (HTTP API, Leaf routes, metrics, dashboard)
  version             print the version

serve, migrate, leases, seq, ticket, bench and backfill are in the server package
(npm install @idforge/server, or npx @idforge/server to serve at once); gen --store and
sql --store need @idforge/stores. Every other command works with idforge alone.

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
  idforge gen snowflake --store ${DEFAULT_STORE} -n 5
  idforge seq create orders --step 1000 && idforge seq next orders -n 3
  idforge plan --writers 3 --writer 2
  idforge inspect 01ARZ3NDEKTSV4RRFFQ69G5FAV
  idforge inspect 175928847299117063 --layout discord --json
  idforge convert c232ab00-9414-11ec-b3c8-9f6bdeced846 --to v6
`;

/** The commands of the library's bin: none of them needs a server package. */
const COMMANDS: Readonly<Record<string, Command>> = {
  gen: genCli,
  inspect: inspectCli,
  convert: convertCli,
  plan: planCli,
  advise: adviseCli,
  public: publicCli,
  shard: shardCli,
  layouts: layoutsCli,
  sql: sqlCli,
};

/**
 * Runs the CLI with `argv` (without the node and script paths); resolves to the exit code.
 * `host` lends the commands of the packages this one does not depend on (the server's
 * commands, the stores for `gen --store`); without it those name their install line, exit 2.
 */
export async function run(argv: readonly string[], io: CliIo, host: CliHost = {}): Promise<number> {
  const [name, ...rest] = argv;
  const bin = host.bin?.name ?? 'idforge';
  const early = topLevel(name, rest, io, host);
  if (early !== undefined || name === undefined) return early ?? 2;
  const topic = name === 'help' ? rest[0] : undefined;
  let command: Command | undefined;
  try {
    command = await commandOf(topic ?? name, host);
    if (command === undefined) throw unknownCommand(topic ?? name);
    if (name === 'help') {
      io.stdout.write(helpAs(command.help, bin));
      return 0;
    }
    const { values, positionals } = parseCommandLine(rest, command.options);
    if (values.help) {
      io.stdout.write(helpAs(command.help, bin));
      return 0;
    }
    return await command.run(positionals, values, io, host);
  } catch (e) {
    const known = command !== undefined || SERVER_COMMANDS.includes(name);
    const cmd = known && name !== 'help' ? ` ${name}` : '';
    if (e instanceof PackageMissingError) {
      io.stderr.write(`${prefixed(bin, cmd, e.message)}\n`);
      return 2;
    }
    if (e instanceof UsageError || e instanceof TypeError || e instanceof RangeError) {
      io.stderr.write(
        `${prefixed(bin, cmd, (e as Error).message)}\nRun "${bin}${cmd} --help" for usage.\n`,
      );
      return 2;
    }
    if (e instanceof IdforgeError) {
      io.stderr.write(`${prefixed(bin, cmd, e.message)} [${e.code}]\n`);
      return 1;
    }
    throw e;
  }
}

/**
 * The bin's own help (no command: exit 2; `-h`, `--help`, `help`: 0) or its version
 * (`version`, `-v`, `--version`); undefined for a command.
 */
function topLevel(name: string | undefined, rest: readonly string[], io: CliIo, host: CliHost) {
  const help = host.bin?.help ?? mainHelp;
  if (name === undefined || name === '-h' || name === '--help') {
    io.stdout.write(help);
    return name === undefined ? 2 : 0;
  }
  if (name === 'help' && rest[0] === undefined) {
    io.stdout.write(help);
    return 0;
  }
  if (name === '-v' || name === '--version' || name === 'version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  return undefined;
}

/** A command's help as the bin that runs it names it: `Usage: idforge-server serve`. */
function helpAs(help: string, bin: string): string {
  return bin === 'idforge' ? help : help.replace(/^Usage: idforge /, `Usage: ${bin} `);
}

/** The command `name`: the library's own, or a server command lent by `host`. */
async function commandOf(name: string | undefined, host: CliHost): Promise<Command | undefined> {
  if (name === undefined) return undefined;
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name];
  if (!SERVER_COMMANDS.includes(name)) return undefined;
  const commands = await loadPackage(SERVER_PACKAGE, 'this command', host.serverCommands);
  return Object.hasOwn(commands, name) ? commands[name] : undefined;
}

/** A command (or top-level flag) not known, with the closest known one. */
function unknownCommand(name: string): UsageError {
  const flag = name.startsWith('-');
  const close = flag
    ? closest(name.replace(/^--?/, ''), ['help', 'version'])
    : closest(name, [...Object.keys(COMMANDS), ...SERVER_COMMANDS]);
  const named = close.map((c) => `${flag ? '--' : ''}${c}`).join(' or ');
  const hint = close.length === 0 ? '' : ` (did you mean ${named}?)`;
  return new UsageError(`unknown ${flag ? 'flag' : 'command'} "${name}"${hint}`);
}

/**
 * `idforge <command>: message`, once: a message naming a subcommand ("seq create: expected a
 * tag") reads "idforge seq create: expected a tag", never "idforge seq: seq create: …".
 */
function prefixed(bin: string, cmd: string, message: string): string {
  const name = cmd.trim();
  if (name !== '' && message.startsWith(`${name}: `)) return `${bin} ${message}`;
  if (name !== '' && /^\S+ \S+: /.test(message) && message.startsWith(`${name} `)) {
    return `${bin} ${message}`;
  }
  return `${bin}${cmd}: ${message}`;
}
