#!/usr/bin/env node
// `idforge-server`: the whole command line with this package's commands. With no command it
// serves (`npx @idforge/server` runs the service on the embedded SQLite default); otherwise it
// takes every `idforge` command: `idforge-server migrate --store URL`, `idforge-server seq …`.
import { binMain } from 'idforge/bin';

const argv = process.argv.slice(2);
await binMain({
  argv:
    argv.length === 0 || (argv[0]?.startsWith('--') && !/^--(help|version)$/.test(argv[0]))
      ? ['serve', ...argv]
      : argv,
  load: () => import('../cli/index.js'),
});
