#!/usr/bin/env node
// `idforge-server`: the whole command line with this package's commands. With no command it
// serves (`npx @idforge/server` runs the service on the embedded SQLite default); otherwise it
// takes every `idforge` command: `idforge-server migrate --store URL`, `idforge-server seq …`,
// with its own help (`idforge-server --help`) and its name in usage lines and messages.
import { binMain } from 'idforge/bin';

const argv = process.argv.slice(2);
await binMain({
  argv:
    argv.length === 0 || (argv[0]?.startsWith('--') && !/^--(help|version)$/.test(argv[0]))
      ? ['serve', ...argv]
      : argv,
  load: async () => ({ run: (await import('../cli/index.js')).runServerBin }),
});
