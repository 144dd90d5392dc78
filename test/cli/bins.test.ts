// The two bins as processes (from the sources): each prints its own help, and both print their
// version for `version`, `--version` and `-v`. `idforge-server --help` printed `idforge`'s
// help: "Usage: idforge", an install line for the package being run, and no word that no
// command means serve.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BINS, loader } from '../helpers/bins.js';

const source = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(source('packages/server/package.json'), 'utf8')) as { version: string }
).version;

/** Runs a bin to its end; resolves its exit code and output. */
function bin(name: keyof typeof BINS, args: readonly string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', loader, BINS[name], ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') reject(error);
        else resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr });
      },
    );
  });
}

describe('the bins', { concurrency: true }, () => {
  test('idforge-server --help: its own usage; no command serves; no install line', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await bin('idforge-server', args);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Usage: idforge-server \[command\] \[options\]\n/, args.join(' '));
      assert.match(r.stdout, /no command[^\n]*serves/i);
      assert.doesNotMatch(r.stdout, /npm install @idforge\/server|Usage: idforge </);
      assert.match(r.stdout, /\/docs/);
    }
  });

  test("a command's help names the bin that was run", async () => {
    const r = await bin('idforge-server', ['serve', '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: idforge-server serve \[options\]/);
    const bad = await bin('idforge-server', ['seq', '--nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Run "idforge-server seq --help" for usage/);
  });

  test('idforge --help is still idforge', async () => {
    const r = await bin('idforge', ['--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: idforge <command> \[options\]/);
  });

  for (const name of Object.keys(BINS) as (keyof typeof BINS)[]) {
    test(`${name} version, --version and -v print the version`, async () => {
      for (const args of [['version'], ['--version'], ['-v']]) {
        const r = await bin(name, args);
        assert.deepEqual(
          { code: r.code, stdout: r.stdout },
          { code: 0, stdout: `${VERSION}\n` },
          `${name} ${args.join(' ')}: ${r.stderr}`,
        );
      }
    });
  }
});
