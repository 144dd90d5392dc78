// `idforge backfill` as a user runs it: usage mistakes (exit 2 naming the flag); a refused
// table (exit 1 with its code); Ctrl-C (exit 130, resumed by a rerun); the progress bar on a
// terminal; --scheme public with a key file. The killed process: backfill-kill.test.ts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import {
  formatPublicKeys,
  generatePublicKey,
  PublicIds,
} from '../../packages/idforge/src/public/index.js';
import { assertFilledOnce, openTestDb, seedTable, type TestDb } from '../helpers/backfill-db.js';
import { backfillArgs, CLEAR, cli, cliInterrupted, cliOnTerminal } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-cli-backfill-');

const ROWS = 5000;
const args = (url: string, table: string, ...more: string[]) => [
  ...backfillArgs(url, table, 200),
  ...more,
];

describe('backfill: usage', () => {
  const store = `sqlite:${join(dir, 'usage.db')}`;
  before(() => new Database(join(dir, 'usage.db')).close());
  const cases: [string[], RegExp][] = [
    [
      ['backfill', '--table', 't', '--column', 'c', '--scheme', 'uuidv7'],
      /--store: expected a database URL/,
    ],
    [
      ['backfill', '--store', store, '--column', 'c', '--scheme', 'uuidv7'],
      /--table: expected a table name/,
    ],
    [
      ['backfill', '--store', store, '--table', 't', '--scheme', 'uuidv7'],
      /--column: expected a column name/,
    ],
    [
      ['backfill', '--store', store, '--table', 't', '--column', 'c'],
      /--scheme: expected uuidv7, uuidv4, ulid or public/,
    ],
    [
      ['backfill', '--store', store, '--table', 't', '--column', 'c', '--scheme', 'ksuid'],
      /--scheme: expected uuidv7, uuidv4, ulid or public, got "ksuid"/,
    ],
    [
      ['backfill', '--store', store, '--table', 't', '--column', 'c', '--scheme', 'ulid'],
      /--scheme ulid: expected --at-column/,
    ],
    [
      ['backfill', '--store', store, '--table', 't', '--column', 'c', '--scheme', 'snowflake'],
      /a Snowflake cannot be backfilled, least of all backdated: it is unique because one worker owns/,
    ],
    [
      [
        ...args(store, 't').map((a) => (a === 'uuidv7' ? 'uuidv4' : a)),
        '--at-column',
        'created_at',
      ],
      /--at-column: only with --scheme uuidv7 or ulid \(uuidv4 values carry no time\)/,
    ],
    [
      [...args(store, 't'), '--at-column', 'public_id'],
      /--at-column: expected a column other than --column/,
    ],
    [[...args(store, 't'), '--batch', '0'], /--batch: expected 1 to 10000, got 0/],
    [
      [...args(store, 't'), '--key-column', 'public_id'],
      /--key-column: expected a column other than --column/,
    ],
    [[...args(store, 't'), '--prefix', 'inv'], /--prefix: only with --scheme public/],
    [[...args(store, 't; DROP TABLE x')], /table: expected a name of letters, digits, _ and \$/],
    [
      ['backfill', '--store', store, '--table', 't', '--column', 'c', '--scheme', 'public'],
      /expected --key-file F or \$IDFORGE_PUBLIC_KEYS/,
    ],
    [
      args('redis://127.0.0.1', 't'),
      /--store: expected sqlite:PATH, postgres:\/\/\.\.\. or mysql:\/\/\.\.\., got a redis URL/,
    ],
  ];
  for (const [argv, message] of cases) {
    test(argv.slice(1).join(' '), async () => {
      const r = await cli(argv);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Run "idforge backfill --help" for usage/);
    });
  }

  test('--help names every option and the resume rule', async () => {
    const r = await cli(['backfill', '--help']);
    assert.equal(r.code, 0);
    for (const word of [
      '--key-column',
      '--batch',
      '--key-file',
      '--prefix',
      'BINARY(16)',
      'Ctrl-C',
      'rerun',
    ]) {
      assert.ok(r.stdout.includes(word), word);
    }
  });
});

describe('backfill CLI on SQLite: refusals, Ctrl-C, a terminal, public IDs', () => {
  const path = join(dir, 'cli.db');
  let db: TestDb;
  before(async () => {
    db = await openTestDb('sqlite', path);
  });
  after(() => db.close());

  test('a table without a usable key: exit 1 with IDF_BACKFILL_NO_KEY, the fix named', async () => {
    await db.exec('CREATE TABLE events (code TEXT, at INTEGER)');
    const r = await cli(args(`sqlite:${path}`, 'events'));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^idforge backfill: table events .* has no usable key: its key column "id" does not exist\..*Give the table a unique NOT NULL integer or uuid column.*\[IDF_BACKFILL_NO_KEY\]$/m,
    );
    assert.equal(await db.columnType('events', 'code'), 'text');
    assert.deepEqual(
      await db.rows("SELECT name FROM pragma_table_info('events') WHERE name = 'public_id'"),
      [],
    );
  });

  test('Ctrl-C: exit 130 after a batch, resumed by the same command', async () => {
    await seedTable(db, 'orders', ROWS);
    const { code, stderr, listenerLeft } = await cliInterrupted(
      args(`sqlite:${path}`, 'orders'),
      /rows\/s/,
    );
    assert.equal(code, 130, stderr);
    assert.match(stderr, /SIGINT: stopping after this batch/);
    assert.match(
      stderr,
      /interrupted after filling [\d,]+ rows .*rerun the same command to resume/,
    );
    assert.equal(listenerLeft, false, 'the signal listener is removed');
    const left = [...(await db.values('orders', 'public_id')).values()].filter((v) => v === null);
    assert.ok(left.length > 0 && left.length < ROWS);
    const r = await cli(args(`sqlite:${path}`, 'orders'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /column: existed, [\d,]+ rows filled before/);
    assert.match(r.stdout, /^complete: all 5,000 rows have a public_id/m);
    assertFilledOnce(await db.values('orders', 'public_id'));
  });

  test('on a terminal: one bar redrawn in place, rows, rate and ETA', async () => {
    await seedTable(db, 'tty', 2000);
    const { code, stderr } = await cliOnTerminal(args(`sqlite:${path}`, 'tty'));
    assert.equal(code, 0, stderr);
    assert.match(
      stderr,
      new RegExp(`\r\\[#{24}\\] 2,000/2,000 rows, [\\d,]+ rows/s, ETA 0 s${CLEAR}`),
    );
    assert.match(stderr, new RegExp(`\rfilled 2,000 rows; building the unique index…${CLEAR}\n`));
  });

  test('--scheme public with a key file: public IDs that decode to each row key', async () => {
    await seedTable(db, 'invoices', 300);
    const key = generatePublicKey(1);
    const file = join(dir, 'keys.txt');
    writeFileSync(file, formatPublicKeys([key]), { mode: 0o600 });
    const r = await cli([
      'backfill',
      '--store',
      `sqlite:${path}`,
      '--table',
      'invoices',
      '--column',
      'public_id',
      '--scheme',
      'public',
      '--key-file',
      file,
      '--prefix',
      'inv',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^invoices\.public_id \(TEXT\) on sqlite:.*, scheme public, key id$/m);
    const ids = new PublicIds({ keys: [key] });
    const rows = await db.rows<{ id: number; v: string }>(
      'SELECT id, public_id AS v FROM invoices',
    );
    for (const row of rows) assert.equal(ids.decode64(row.v, 'inv'), BigInt(row.id));
  });
});

test('--scheme public on a table with a negative key: exit 2 naming it, before any row is filled', async () => {
  const path = join(dir, 'negative.db');
  const db = new Database(path);
  db.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY, v INTEGER)');
  const insert = db.prepare('INSERT INTO accounts (id, v) VALUES (?, ?)');
  for (let id = -3; id < 500; id++) insert.run(id, id);
  db.close();
  const keys = join(dir, 'negative.keys');
  writeFileSync(keys, formatPublicKeys([generatePublicKey(1)]), { mode: 0o600 });
  const r = await cli([
    ...args(`sqlite:${path}`, 'accounts', '--key-file', keys).map((a) =>
      a === 'uuidv7' ? 'public' : a,
    ),
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /the table has a negative key \(-3\); public IDs encode keys 0 to 2\^64 - 1/,
  );
  const check = new Database(path);
  const filled = check.prepare('SELECT count(public_id) AS n FROM accounts').get() as { n: number };
  check.close();
  assert.equal(filled.n, 0, 'nothing was written');
});
