// `idforge ticket setup|next` and `idforge plan`, called as command functions with a captured
// io (the same shape run() gives them). Ticket servers: two namespaces on the shared MariaDB
// and one on the shared PostgreSQL, mixed in one list.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { serverList } from '../../packages/idforge/src/cli/args.js';
import { planCommand, planHelp } from '../../packages/idforge/src/cli/commands/plan.js';
import { UsageError } from '../../packages/idforge/src/cli/io.js';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import { ticketCommand, ticketHelp } from '../../packages/server/src/cli/commands/ticket.js';
import { serviceSkip } from '../helpers/services.js';

function fakeIo() {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: { write: (s: string) => (out.stdout += s) },
    stderr: { write: (s: string) => (out.stderr += s) },
    stdin: Readable.from(['']),
  };
  return { io, out, lines: () => out.stdout.split('\n').filter((l) => l !== '') };
}

const MYSQL = 'mysql://root@127.0.0.1:3306/test';
const PG = 'postgres://postgres@127.0.0.1:5432/test';
const tag = `${process.pid}_${Math.random().toString(16).slice(2, 6)}`;
const nsA = `idf_cli_a_${tag}`;
const nsB = `idf_cli_b_${tag}`;
const nsP = `idf_cli_p_${tag}`;
const skipMysql = await serviceSkip('MariaDB', '127.0.0.1', 3306);
const skipPg = await serviceSkip('PostgreSQL', '127.0.0.1', 5432);
const skip = skipMysql || skipPg;

after(async () => {
  if (skip) return;
  const conn = await mysql.createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
  for (const ns of [nsA, nsB]) {
    const [rows] = await conn.query<mysql.RowDataPacket[]>(
      'SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ?',
      [`${ns}\\_%`],
    );
    for (const r of rows) await conn.query(`DROP TABLE IF EXISTS \`${r.t}\``);
  }
  await conn.end();
  const client = new pg.Client({ connectionString: PG });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${nsP}" CASCADE`);
  await client.end();
});

describe('idforge ticket', () => {
  const servers = `${MYSQL}?namespace=${nsA},${PG}?namespace=${nsP},${MYSQL}?namespace=${nsB}`;

  test('setup then next: three servers (MariaDB and PostgreSQL) split 1..N in list order', {
    skip,
  }, async () => {
    const setup = fakeIo();
    assert.equal(await ticketCommand(['setup', 'photos'], { servers }, setup.io), 0);
    assert.equal(
      setup.out.stdout,
      'set up ticket sequence "photos" on 3 server(s): increment 3\n' +
        `  offset 1  ${MYSQL}?namespace=${nsA}\n` +
        `  offset 2  ${PG}?namespace=${nsP}\n` +
        `  offset 3  ${MYSQL}?namespace=${nsB}\n`,
    );
    const next = fakeIo();
    assert.equal(await ticketCommand(['next', 'photos'], { servers, count: '30' }, next.io), 0);
    const got = next.lines().map(BigInt);
    assert.equal(got.length, 30);
    assert.deepEqual(
      [...got].sort((a, b) => Number(a - b)),
      Array.from({ length: 30 }, (_, i) => BigInt(i + 1)),
      'round robin over increment 3 offsets 1..3: exactly 1..30',
    );
    assert.equal(next.out.stderr, '');
    const again = fakeIo();
    assert.equal(await ticketCommand(['setup', 'photos'], { servers }, again.io), 0);
    const one = fakeIo();
    await ticketCommand(['next', 'photos'], { servers }, one.io);
    assert.ok(BigInt(one.lines()[0]!) > 30n, 'setup again changed nothing: no restart');
  });

  test('next with a server down: every ticket still printed, the outage noted on stderr', {
    skip,
  }, async () => {
    const list = `${MYSQL}?namespace=${nsA},mysql://root@127.0.0.1:1/test`;
    const setupA = fakeIo();
    // Set up on the reachable one only (setup needs every server; see the next test).
    const one = { servers: `${MYSQL}?namespace=${nsA}`, increment: '2' };
    assert.equal(await ticketCommand(['setup', 'orders'], one, setupA.io), 0);
    const r = fakeIo();
    assert.equal(await ticketCommand(['next', 'orders'], { servers: list, count: '10' }, r.io), 0);
    // Ten tickets, every one the up server's (odd: offset 1 of increment 2), none twice. Not
    // necessarily 1..19: concurrent REPLACEs of the stub row deadlock now and then, and InnoDB
    // never gives back a victim's auto-increment value, so a retried ticket leaves a gap (the
    // ticket server's contract: gaps, never duplicates; seen under load in CI).
    const tickets = r.lines().map(BigInt);
    assert.equal(tickets.length, 10, 'every ticket printed');
    assert.equal(new Set(tickets).size, 10, 'no ticket twice');
    assert.ok(
      tickets.every((t) => t % 2n === 1n),
      `all from the server that is up: ${tickets.join(' ')}`,
    );
    assert.match(
      r.out.stderr,
      /mysql:\/\/root@127\.0\.0\.1:1\/test is down \(.*ECONNREFUSED.*\); using the other servers/,
    );
  });

  test('setup needs every server: an unreachable one is StoreUnavailableError', {
    skip,
  }, async () => {
    await assert.rejects(
      ticketCommand(
        ['setup', 'users'],
        { servers: `${MYSQL}?namespace=${nsA},mysql://root@127.0.0.1:1/test` },
        fakeIo().io,
      ),
      StoreUnavailableError,
    );
  });

  test('usage mistakes are UsageErrors', async () => {
    const io = fakeIo().io;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], { servers: MYSQL }, /expected setup or next/],
      [['grab', 'x'], { servers: MYSQL }, /unknown subcommand "grab"/],
      [['next'], { servers: MYSQL }, /expected a tag/],
      [['next', 'Photos'], { servers: MYSQL }, /ticket tag: expected/],
      [['next', 'a', 'b'], { servers: MYSQL }, /unexpected argument "b"/],
      [['next', 'a'], { servers: `${MYSQL},${MYSQL}` }, /listed twice/],
      [['next', 'a'], { servers: `${MYSQL},` }, /empty entry/],
      [['next', 'a'], { servers: MYSQL, count: '0' }, /^--count: expected 1 to/],
      [['next', 'a'], { servers: MYSQL, increment: '2' }, /--increment is for ticket setup/],
      [['setup', 'a'], { servers: MYSQL, count: '2' }, /-n is for ticket next/],
      [
        ['setup', 'a'],
        { servers: `${MYSQL},${PG}`, increment: '1' },
        /^--increment: expected 2 to/,
      ],
    ];
    for (const [args, values, message] of cases) {
      await assert.rejects(
        ticketCommand(args, values, io),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
        args.join(' '),
      );
    }
  });

  test('--servers falls back to $IDFORGE_TICKET_SERVERS of the environment passed in', () => {
    const io = { env: { IDFORGE_TICKET_SERVERS: 'mysql://a/x, postgres://b/y' } };
    assert.deepEqual(serverList({}, io), ['mysql://a/x', 'postgres://b/y']);
    assert.deepEqual(serverList({ servers: 'mysql://c/z' }, io), ['mysql://c/z']);
    assert.throws(() => serverList({}, { env: {} }), UsageError);
    assert.throws(() => serverList({}, {}), UsageError);
  });

  test('help names both subcommands and the durability requirement', () => {
    assert.match(ticketHelp, /ticket setup <tag>/);
    assert.match(ticketHelp, /ticket next <tag> \[-n COUNT\]/);
    assert.match(ticketHelp, /innodb_flush_log_at_trx_commit = 1/);
  });
});

describe('idforge plan', () => {
  test('prints SQL with comments: statements per writer, spare offsets, the caveat', () => {
    const r = fakeIo();
    assert.equal(planCommand([], { writers: '2', increment: '3', writer: '1' }, r.io), 0);
    const text = r.out.stdout;
    assert.ok(
      text.startsWith(
        '-- 2 writer(s), increment 3 (mysql): writer i issues i, i + 3, i + 6, ...\n\n' +
          '-- writer 1: 1, 4, 7, ...\n' +
          'SET GLOBAL auto_increment_increment = 3;\n' +
          'SET GLOBAL auto_increment_offset = 1;\n' +
          '-- my.cnf [mysqld], so a restart keeps it: auto_increment_increment = 3, auto_increment_offset = 1\n\n' +
          '-- spare offsets',
      ),
      text,
    );
    assert.match(text, /\n-- spare offsets for writers added later: 3\n/);
    assert.match(text, /\n-- Caveat: The increment is baked into every number/);
    for (const line of text.split('\n')) {
      assert.ok(line === '' || line.startsWith('--') || line.endsWith(';'), `valid SQL: ${line}`);
      assert.ok(line.length <= 100 || !line.startsWith('-- Caveat'), 'caveat wrapped');
    }
  });

  test('--dialect postgres and --json', () => {
    const r = fakeIo();
    planCommand([], { writers: '2', dialect: 'postgres', tag: 'photos', json: true }, r.io);
    const plan = JSON.parse(r.out.stdout);
    assert.equal(plan.dialect, 'postgres');
    assert.deepEqual(plan.perWriter[1].sample, ['2', '4', '6']);
    assert.equal(
      plan.perWriter[1].statements[0],
      'CREATE SEQUENCE photos AS bigint INCREMENT BY 2 START WITH 2 MINVALUE 1 NO CYCLE;',
    );
    assert.match(plan.caveat, /re-planning/);
  });

  test('usage mistakes are UsageErrors', () => {
    const io = fakeIo().io;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], {}, /expected --writers N/],
      [['x'], { writers: '2' }, /unexpected argument "x"/],
      [[], { writers: '0' }, /^--writers: expected 1 to 65535/],
      [[], { writers: 'two' }, /^--writers: expected an integer/],
      [[], { writers: '2', dialect: 'oracle' }, /^--dialect: expected mysql or postgres/],
      [[], { writers: '3', increment: '2' }, /^--increment: expected 3 to/],
      [[], { writers: '1', tag: 'A b' }, /^ticket tag: expected/],
    ];
    for (const [args, values, message] of cases) {
      assert.throws(
        () => planCommand(args, values, io),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
        JSON.stringify(values),
      );
    }
    assert.match(planHelp, /--writers N/);
  });
});
