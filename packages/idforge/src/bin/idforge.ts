#!/usr/bin/env node
// `idforge`: the library's bin. The commands that need a store or the service come from
// @idforge/server (and `gen --store` from @idforge/stores) when those are installed beside
// this package; otherwise they print the one line that installs them, exit 2. Those packages
// depend on this one, not the other way round: they are looked up by name at run time.
import type { Command, StoresModule } from '../cli/index.js';
import { binMain } from './main.js';

const SERVER_CLI: string = '@idforge/server/cli';
const STORES: string = '@idforge/stores';

await binMain({
  argv: process.argv.slice(2),
  load: () => import('../cli/main.js'),
  host: {
    serverCommands: async () =>
      ((await import(SERVER_CLI)) as { serverCommands: Record<string, Command> }).serverCommands,
    stores: async () => (await import(STORES)) as StoresModule,
  },
});
