/**
 * What the library's command line borrows from the other packages when they are installed.
 * `idforge` (this package) holds every command that needs no server; the service and the
 * store-backed ones are in `@idforge/server` (which lists them: this package does not), and
 * `gen snowflake --store URL` opens its store through `@idforge/stores`. The bin hands `run`
 * a host that loads them on demand; a package that is not installed becomes one line naming
 * the install command, exit 2, never Node's ERR_MODULE_NOT_FOUND.
 */
import type { LeaseStore } from '../coord/index.js';
import type { SqlFunctionsTarget } from '../sql/index.js';
import type { Options, OptionValues } from './args.js';
import { type CliIo, UsageError } from './io.js';

/**
 * One command: its help text, its flags (the parseArgs option table `O`) and what it does,
 * which resolves to the exit code. `run` takes the values of exactly those flags
 * ({@link OptionValues} of `O`), so a command declared as `Command<typeof options>` reads no
 * flag it does not declare. `Command` alone (any table) is what a list of commands holds.
 */
export interface Command<O extends Options = Options> {
  /**
   * The command's line in its bin's list of commands: its usage (`seq <sub> [tag]`) and what it
   * does (`\n` starts an indented continuation line). The bins' help lists are built from these,
   * so a command is named once: in the registry that holds it.
   */
  readonly summary: readonly [usage: string, text: string];
  readonly help: string;
  readonly options: O;
  // A method, so that a command of any one table is a `Command` of every table (a list).
  run(
    positionals: string[],
    values: OptionValues<O>,
    io: CliIo,
    host: CliHost,
  ): number | Promise<number>;
}

/** The part of `@idforge/stores` the library's commands use. */
export interface StoresModule {
  openLeaseStore(
    url: string,
    options?: { readonly onCreate?: (path: string) => void },
  ): Promise<LeaseStore>;
  /** `idforge sql --apply/--remove`: the database that holds the SQL functions. */
  openSqlFunctions?(url: string): Promise<SqlFunctionsTarget>;
}

/** Where the packages the library does not depend on come from. */
export interface CliHost {
  /** The server package's commands (`@idforge/server/cli`), loaded when one is asked for. */
  readonly serverCommands?: () => Promise<Readonly<Record<string, Command>>>;
  /** The stores package (`@idforge/stores`), loaded when a command is given `--store`. */
  readonly stores?: () => Promise<StoresModule>;
  /**
   * The bin the command line runs as, when not `idforge`: its name in usage lines and
   * messages (`Run "idforge-server seq --help"`), and its own top-level help.
   */
  readonly bin?: { readonly name: string; readonly help: string };
}

export const SERVER_PACKAGE = '@idforge/server';
export const STORES_PACKAGE = '@idforge/stores';

/**
 * The usage error of a command whose package is not installed: the one line that installs it
 * (printed as `idforge serve: … npm install @idforge/server`, exit 2).
 */
export class PackageMissingError extends UsageError {
  constructor(
    readonly packageName: string,
    what: string,
    options?: ErrorOptions,
  ) {
    super(`${what} needs the ${packageName} package: npm install ${packageName}`, options);
  }
}

/**
 * Resolves what `load` imports; rejects with `PackageMissingError` when `load` is absent or
 * the package `pkg` is not installed, and with the import's own error otherwise.
 */
export async function loadPackage<T>(
  pkg: string,
  what: string,
  load: (() => Promise<T>) | undefined,
): Promise<T> {
  if (load === undefined) throw new PackageMissingError(pkg, what);
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : '';
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      (message.includes(`'${pkg}'`) || message.includes(`'${pkg}/`))
    ) {
      throw new PackageMissingError(pkg, what, { cause: error });
    }
    throw error;
  }
}

/**
 * The "Commands:" lines of a bin's help, one per command in the order of `commands`: the usage
 * padded to a column, then the summary, its continuation lines under it.
 */
export function commandList(commands: Readonly<Record<string, Command>>): string {
  return Object.values(commands)
    .map(({ summary: [usage, text] }) => {
      const [first, ...more] = text.split('\n');
      const head = usage.length > 18 ? `  ${usage}\n${' '.repeat(22)}` : `  ${usage.padEnd(20)}`;
      return [`${head}${first}`, ...more.map((line) => `${' '.repeat(22)}${line}`)].join('\n');
    })
    .join('\n');
}
