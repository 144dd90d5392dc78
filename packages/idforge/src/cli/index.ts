/**
 * `idforge/cli`: the command line as a library, for the packages that add commands to it
 * (`@idforge/server` adds the service and the store-backed commands) and for
 * tests and tools that drive it in-process. `run(argv, io, host)` never ends the process.
 * This file re-exports only, by name.
 */
export {
  bigintArg,
  DEFAULT_STORE,
  integer,
  noArgs,
  type Options,
  type OptionValues,
  STORE_HELP,
  serverList,
  storeUrl,
  tagArg,
  ticketTagArg,
} from './args.js';
export {
  type CliHost,
  type Command,
  commandList,
  loadPackage,
  PackageMissingError,
  SERVER_PACKAGE,
  STORES_PACKAGE,
  type StoresModule,
} from './host.js';
export { type CliIo, formatTable, LineWriter, UsageError } from './io.js';
export { loadPublicKeys } from './keys.js';
export { libraryCommands, run } from './main.js';
export { VERSION } from './version.js';
