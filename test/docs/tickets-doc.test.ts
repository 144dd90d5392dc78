// Keeps docs/sequences-tickets.md true: the MariaDB durability settings it lists are the ones
// scripts/services/mariadb.sh gives the project's own ticket servers, and the `idforge plan`
// examples are the command's real output.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { planCommand } from '../../packages/idforge/src/cli/commands/plan.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const doc = read('docs/sequences-tickets.md');
const script = read('scripts/services/mariadb.sh');

test('every MariaDB setting in the durability table is set that way by mariadb.sh', () => {
  const mysqlTable = doc.slice(doc.indexOf('### MariaDB / MySQL'), doc.indexOf('### PostgreSQL'));
  const rows = [...mysqlTable.matchAll(/^\| `(innodb_[a-z_]+)` \| `(\w+)`/gm)];
  assert.ok(rows.length >= 3, 'the table lists the innodb settings');
  for (const [, name, value] of rows) {
    assert.match(script, new RegExp(`^${name} = ${value}$`, 'm'), `${name} = ${value}`);
  }
  assert.match(script, /^default-storage-engine = InnoDB$/m);
  assert.match(script, /^skip-log-bin$/m, 'no binary log, as the table says');
});

test('the idforge plan examples are the real output', () => {
  const examples = [...doc.matchAll(/^\$ idforge plan (.*)\n([\s\S]*?)```/gm)];
  assert.equal(examples.length, 2, 'the overview and one writer');
  for (const [, args, shown] of examples) {
    const argv = args!.split(' ');
    const values: Record<string, string> = {};
    for (let i = 0; i < argv.length; i += 2) values[argv[i]!.slice(2)] = argv[i + 1]!;
    let out = '';
    const io = {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: () => true },
      stdin: Readable.from(['']),
    };
    planCommand([], values, io);
    assert.ok(shown!.trim().length > 0);
    assert.ok(out.startsWith(shown!.trimEnd()), `docs show the start of the real output: ${args}`);
  }
});
