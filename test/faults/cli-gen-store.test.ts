// Several `idforge gen snowflake --store URL` processes started at once print disjoint IDs
// (the CLI as users run it: separate OS processes sharing the embedded SQLite store).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decompose, getLayout } from '../../src/core/index.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../src/bin/idforge.ts', import.meta.url));

test('6 CLI processes at once on one store: distinct worker IDs, disjoint IDs', async () => {
  const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'idforge-cli-fleet-')), 'ids.db')}`;
  const runs = await Promise.all(
    Array.from({ length: 6 }, () =>
      run(
        process.execPath,
        [
          '--import',
          'tsx',
          bin,
          'gen',
          'snowflake',
          '--store',
          store,
          '--workers',
          '0-5',
          '--wait',
          '10000',
          '-n',
          '50000',
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      ),
    ),
  );
  const all = new Set<string>();
  const workers = new Set<number>();
  for (const r of runs) {
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 50_000);
    for (const l of lines) all.add(l);
    const m = /worker ID (\d+) /.exec(r.stderr);
    assert.ok(m, r.stderr);
    workers.add(Number(m[1]));
    assert.ok(
      lines.every((l) => decompose(getLayout('default'), BigInt(l)).fields.node === Number(m[1])),
    );
  }
  assert.equal(all.size, 300_000, 'no ID printed twice');
  assert.ok(workers.size >= 1);
});
