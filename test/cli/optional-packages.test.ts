// Issue 20: the library's command line without the server package. `idforge serve` (and
// every store-backed command) prints the one line that installs @idforge/server, exit 2;
// `gen --store` names @idforge/stores; nothing is created. With the packages installed, the
// library's bin lends their commands (checked through the real bin, in the repository where
// they are workspaces).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { type CliHost, type Command, run } from '../../packages/idforge/src/cli/index.js';
import { BINS, loader } from '../helpers/bins.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-packages-');

async function library(argv: string[], host?: CliHost) {
  let stdout = '';
  let stderr = '';
  const code = await run(
    argv,
    {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdin: Readable.from(['']),
      env: {},
    },
    host,
  );
  return { code, stdout, stderr };
}

/** A loader as the bin's, where the package is not installed (Node's own error). */
function notInstalled(pkg: string) {
  return async (): Promise<never> => {
    const e = new Error(
      `Cannot find package '${pkg}' imported from /app/node_modules/idforge/dist/bin/idforge.js`,
    );
    (e as NodeJS.ErrnoException).code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  };
}

const SERVER_LINE = 'needs the @idforge/server package: npm install @idforge/server\n';

for (const argv of [
  ['serve'],
  ['serve', '--port', '0'],
  ['migrate', '--store', `sqlite:${join(dir, 'm.db')}`],
  ['leases'],
  ['seq', 'next', 'orders'],
  ['ticket', 'next', 'orders'],
  ['bench', 'db'],
  ['backfill', '--table', 't'],
  ['help', 'serve'],
]) {
  test(`idforge ${argv.join(' ')} without the server package: the install line, exit 2`, async () => {
    for (const host of [{}, { serverCommands: notInstalled('@idforge/server') }]) {
      const r = await library(argv, host as CliHost);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      const name = argv[0] === 'help' ? argv[1] : argv[0];
      assert.equal(
        r.stderr,
        `idforge: "${name}" is not an idforge command; if it is one of the service's, it ${SERVER_LINE}`,
      );
    }
  });
}

test('gen snowflake --store without the stores package: the install line, exit 2, no file', async () => {
  const path = join(dir, 'gen.db');
  for (const host of [{}, { stores: notInstalled('@idforge/stores') }]) {
    const r = await library(['gen', 'snowflake', '--store', `sqlite:${path}`], host as CliHost);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      'idforge gen: --store needs the @idforge/stores package: npm install @idforge/stores\n',
    );
    assert.equal(existsSync(path), false);
  }
});

test("a loader's other failure is not mistaken for a missing package", async () => {
  const broken = async (): Promise<never> => {
    throw new Error('the server package is broken');
  };
  await assert.rejects(library(['serve'], { serverCommands: broken }), /broken/);
});

test('the commands that need no server work with the library alone; a typo is still a typo', async () => {
  const gen = await library(['gen', 'uuidv7', '-n', '2']);
  assert.equal(gen.code, 0);
  assert.equal(gen.stdout.trim().split('\n').length, 2);
  const typo = await library(['gne']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown command "gne" \(did you mean gen\?\)/);
  const help = await library(['--help']);
  assert.match(help.stdout, /npm install @idforge\/server/);
  assert.doesNotMatch(
    help.stdout,
    /^ {2}serve /m,
    'the server commands are listed only when installed',
  );
});

test("the library's bin lends the server's commands when the package is installed", async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', loader, BINS.idforge, 'serve', '--help'],
    { cwd: dir },
  );
  assert.match(stdout, /^Usage: idforge serve/m);
  assert.equal(existsSync(join(dir, 'idforge.db')), false, '--help creates nothing');
});

test('one version for the three packages, and --version prints it', async () => {
  const { readFileSync } = await import('node:fs');
  const version = (dir: string) =>
    (
      JSON.parse(
        readFileSync(new URL(`../../packages/${dir}/package.json`, import.meta.url), 'utf8'),
      ) as { version: string }
    ).version;
  const v = version('idforge');
  assert.equal(version('stores'), v);
  assert.equal(version('server'), v);
  assert.equal((await library(['--version'])).stdout, `${v}\n`);
});

test("a server command is its table entry: both bins' help, dispatch and suggestions follow it", async () => {
  const { serverCommands, serverBinHelp } = await import('../../packages/server/src/cli/index.js');
  const rotate: Command = {
    summary: ['rotate <tag>', 'a command added by one line in the server registry'],
    help: 'Usage: idforge rotate <tag>\n',
    options: {},
    run: (positionals, _values, io) => {
      io.stdout.write(`rotated ${positionals[0]}\n`);
      return 0;
    },
  };
  const host: CliHost = { serverCommands: async () => ({ ...serverCommands, rotate }) };
  const help = await library(['--help'], host);
  assert.match(help.stdout, /^ {2}rotate <tag> {8}a command added by one line/m);
  for (const name of Object.keys(serverCommands))
    assert.match(help.stdout, new RegExp(`^  ${name}\\b`, 'm'));
  assert.deepEqual(await library(['rotate', 'orders'], host), {
    code: 0,
    stdout: 'rotated orders\n',
    stderr: '',
  });
  const typo = await library(['rotat'], host);
  assert.match(typo.stderr, /unknown command "rotat" \(did you mean rotate\?\)/);
  // The server bin's list is the same table's: every registered command, no other list.
  for (const name of Object.keys(serverCommands)) {
    assert.match(serverBinHelp, new RegExp(`^  ${name}\\b`, 'm'));
  }
});
