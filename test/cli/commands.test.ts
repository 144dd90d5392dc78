// The shape of the CLI's commands (issue 21): every command file holds its option table, help
// and handler in one `Command`, its values type derived from the table (OptionValues), and no
// function of either CLI runs over 60 lines. The type checks are `@ts-expect-error` lines:
// `tsc -p tsconfig.json` (npm run lint) fails should one of them stop being an error.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseCommandLine } from '../../packages/idforge/src/cli/args.js';
import type { Command, Options, OptionValues } from '../../packages/idforge/src/cli/index.js';
import { VERSION } from '../../packages/idforge/src/cli/index.js';
import { cli } from '../helpers/cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const options = {
  count: { type: 'string', short: 'n' },
  json: { type: 'boolean' },
  field: { type: 'string', multiple: true },
} as const satisfies Options;

test('the values of a command line are typed by its option table', () => {
  const { values, positionals } = parseCommandLine(
    ['-n', '3', '--json', '--field', 'a=1', '--field', 'b=2', 'x'],
    options,
  );
  const count: string | undefined = values.count;
  const json: boolean | undefined = values.json;
  const field: string[] | undefined = values.field;
  assert.deepEqual([count, json, field, positionals], ['3', true, ['a=1', 'b=2'], ['x']]);
  // @ts-expect-error: no option --store, so no value
  assert.equal(values.store, undefined);
  // @ts-expect-error: --json is a switch, not a string
  const text: string | undefined = values.json;
  assert.equal(text, true);
});

test('a Command reads only the flags of its table, and sits in a list of any commands', async () => {
  const command: Command<typeof options> = {
    summary: ['demo', 'a demonstration'],
    help: 'Usage: demo\n',
    options,
    run: (_positionals, values: OptionValues<typeof options>) => (values.json ? 0 : 1),
  };
  const wrong: Command<typeof options> = {
    summary: ['wrong', 'reads a flag it does not declare'],
    help: '',
    options,
    // @ts-expect-error: a handler reading a flag the table does not declare
    run: (_positionals, values) => (values.store === undefined ? 0 : 1),
  };
  const list: Readonly<Record<string, Command>> = { command, wrong };
  assert.equal(Object.keys(list).length, 2);
  const io = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: Readable.from(['']),
  };
  assert.equal(await command.run([], { json: true }, io, {}), 0);
});

test('--version of both bins prints the version in package.json', async () => {
  const pkg = JSON.parse(readFileSync(join(root, 'packages/idforge/package.json'), 'utf8'));
  assert.equal(VERSION, pkg.version);
  for (const flag of ['--version', '-v']) {
    assert.deepEqual(await cli([flag]), {
      code: 0,
      stdout: `${pkg.version}\n`,
      stderr: '',
      lines: [pkg.version],
    });
  }
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('no function of the CLIs is over 60 lines (first line to closing brace)', () => {
  const long: string[] = [];
  for (const dir of ['packages/idforge/src/cli', 'packages/server/src/cli']) {
    for (const f of files(join(root, dir))) {
      const source = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
          const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          const name = (node as { name?: ts.Node }).name?.getText(source) ?? '(anonymous)';
          if (last - first + 1 > 60) {
            long.push(`${relative(root, f)}:${first + 1} ${name}: ${last - first + 1} lines`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  assert.deepEqual(long, []);
});
