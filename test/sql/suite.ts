// The in-database functions of `idforge sql` on one real engine (PostgreSQL or MariaDB, each
// file gives its adapter): install, re-apply, upgrade and remove through the CLI; 8 sessions
// × 10,000 calls without a duplicate; every SQL ID decoded by the library (inspect) and the
// library's IDs and the shared vectors decoded in SQL; the counter's overflow and clock
// rollback rule driven by the session's clock setting; bounds equal to the library's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import {
  registerDecoding,
  registerLayouts,
  registerPrinted,
  registerRemove,
} from './checks-decode.js';
import { registerClockRule, registerConcurrency } from './checks-run.js';
import { type Engine, NODE, type Session } from './engine.js';

export function engineSuite(engine: Engine, skip: string | false): void {
  let s: Session;
  before(async () => {
    if (skip) return;
    await engine.create();
    s = await engine.session();
  });
  after(async () => {
    if (skip) return;
    await s?.close();
    await engine.drop();
  });

  test(`${engine.name}: a bad input creates nothing; apply installs, again changes nothing`, {
    skip,
  }, async () => {
    const bad = await cli(['sql', '--store', engine.url, '--apply', '--node', '1024']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--node: expected 0 to 1023, got 1024/);
    const layout = await cli(['sql', '--store', engine.url, '--apply', '--layout', 'nope']);
    assert.equal(layout.code, 2, layout.stderr);
    assert.deepEqual(await engine.objects(s), []);
    const first = await cli(['sql', '--store', engine.url, '--apply', '--node', String(NODE)]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^installed idforge SQL functions v\d+ \(layout default, node 5\)/);
    const again = await cli([
      'sql',
      '--store',
      engine.url,
      '--apply',
      '--node',
      String(NODE),
      '--json',
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).action, 'unchanged');
  });

  registerConcurrency(engine, () => s, skip);
  registerClockRule(engine, () => s, skip);
  registerDecoding(engine, () => s, skip);
  registerLayouts(engine, () => s, skip);
  registerRemove(engine, () => s, skip);
  registerPrinted(engine, () => s, skip);
}
