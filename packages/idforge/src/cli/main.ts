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
  commandList,
  loadPackage,
  PackageMissingError,
  SERVER_PACKAGE,
} from './host.js';
import { type CliIo, UsageError } from './io.js';
import { VERSION } from './version.js';

export type { CliIo } from './io.js';

/** The library's help around its list of commands, which the commands' summaries make. */
function mainHelp(server: Readonly<Record<string, Command>> | undefined): string {
  const serverPart =
    server === undefined
      ? `
The service and the commands that keep state in a store (sequences, tickets, leases) come
with the server package (npm install @idforge/server, or npx @idforge/server to serve at
once), and are listed here once it is installed. gen --store and sql --store need
@idforge/stores. Every command above works with idforge alone.
`
      : `
Commands of @idforge/server:
${commandList(server)}
`;
  return `Usage: idforge <command> [options]

Unique identifiers for distributed systems: UUIDv4/v7, ULID, KSUID and Snowflake layouts.

Commands:
${commandList(libraryCommands)}
  version             print the version
${serverPart}
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
}

/**
 * The commands of the library's bin, in the order its help lists them: none of them needs a
 * server package. A command is its file plus one line here (the server's: in its package).
 */
export const libraryCommands: Readonly<Record<string, Command>> = {
  gen: genCli,
  inspect: inspectCli,
  convert: convertCli,
  layouts: layoutsCli,
  plan: planCli,
  advise: adviseCli,
  public: publicCli,
  shard: shardCli,
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
  const early = await topLevel(name, rest, io, host);
  if (early !== undefined || name === undefined) return early ?? 2;
  const topic = name === 'help' ? rest[0] : undefined;
  let command: Command | undefined;
  try {
    command = await commandOf(topic ?? name, host);
    if (command === undefined) throw unknownCommand(topic ?? name, []);
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
    const cmd = command !== undefined && name !== 'help' ? ` ${name}` : '';
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
async function topLevel(
  name: string | undefined,
  rest: readonly string[],
  io: CliIo,
  host: CliHost,
): Promise<number | undefined> {
  if (name === '-v' || name === '--version' || name === 'version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const bare = name === undefined || name === '-h' || name === '--help';
  if (!bare && !(name === 'help' && rest[0] === undefined)) return undefined;
  io.stdout.write(host.bin?.help ?? mainHelp(await serverCommandsOf(host)));
  return name === undefined ? 2 : 0;
}

/** A command's help as the bin that runs it names it: `Usage: idforge-server serve`. */
function helpAs(help: string, bin: string): string {
  return bin === 'idforge' ? help : help.replace(/^Usage: idforge /, `Usage: ${bin} `);
}

/** The server package's commands, or undefined when the package is not installed. */
async function serverCommandsOf(host: CliHost) {
  try {
    return await loadPackage(SERVER_PACKAGE, 'this command', host.serverCommands);
  } catch (e) {
    if (e instanceof PackageMissingError) return undefined;
    throw e;
  }
}

/**
 * The command `name`: the library's own, or one of the server package's. Without that package
 * a name the library does not know may be one of its commands: the error says so and names
 * the install line, unless the name is close to one of the library's (a typo).
 */
async function commandOf(name: string | undefined, host: CliHost): Promise<Command | undefined> {
  if (name === undefined) return undefined;
  if (Object.hasOwn(libraryCommands, name)) return libraryCommands[name];
  const server = await serverCommandsOf(host);
  const names = [...Object.keys(libraryCommands), ...Object.keys(server ?? {})];
  if (server !== undefined && Object.hasOwn(server, name)) return server[name];
  if (server !== undefined || name.startsWith('-') || closest(name, names).length > 0) {
    throw unknownCommand(name, names);
  }
  throw new PackageMissingError(
    SERVER_PACKAGE,
    `"${name}" is not an idforge command; if it is one of the service's, it`,
  );
}

/** A command (or top-level flag) not known, with the closest of `names`. */
function unknownCommand(name: string, names: readonly string[]): UsageError {
  const flag = name.startsWith('-');
  const close = flag
    ? closest(name.replace(/^--?/, ''), ['help', 'version'])
    : closest(name, names);
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
