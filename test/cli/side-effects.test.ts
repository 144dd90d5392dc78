// Issue 20, item 3: a command that fails leaves nothing behind. Before, `idforge seq next orders`
// (an unknown tag) and `idforge serve` on a port in use both created ./idforge.db (and serve
// with --migrate created its tables on the servers) before failing. Item 4: a store URL of
// the wrong kind is named with the schemes its role accepts, and the role that takes it.
// Each command runs through the CLI in a fresh working directory.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { type Stand, silentServer } from '../helpers/tcp.js';
import { tempDir } from '../helpers/temp.js';

const pgSkip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
const mySkip = await serviceSkip('MariaDB', SERVERS.mysql.host, SERVERS.mysql.port);

const home = process.cwd();

/** Runs the CLI in a new, empty working directory; returns its result and what it left there. */
async function inEmptyDir(argv: string[], env: Record<string, string> = {}) {
  const { dir, remove } = tempDir('idforge-side-effects-');
  process.chdir(dir);
  try {
    const result = await cli(argv, '', env);
    return { ...result, left: readdirSync(dir) };
  } finally {
    process.chdir(home);
    remove();
  }
}

/** The PostgreSQL schema of a fresh namespace URL, if it exists. */
async function pgSchemaExists(url: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const ns = new URL(url).searchParams.get('namespace')!;
  const client = new pg.Client({ connectionString: SERVERS.postgres.url });
  await client.connect();
  try {
    const r = await client.query(
      'SELECT 1 FROM information_schema.schemata WHERE schema_name = $1',
      [ns],
    );
    return r.rowCount !== 0;
  } finally {
    await client.end();
  }
}

/** The MariaDB tables of a fresh namespace URL (named NAMESPACE_...). */
async function mysqlTables(url: string): Promise<string[]> {
  const { default: mysql } = await import('mysql2/promise');
  const ns = new URL(url).searchParams.get('namespace')!;
  const conn = await mysql.createConnection(SERVERS.mysql.url);
  try {
    const [rows] = await conn.query(
      'SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ?',
      [`${ns}\\_%`],
    );
    return (rows as { t: string }[]).map((r) => r.t);
  } finally {
    await conn.end();
  }
}

describe('issue 20: a failing command creates no store', () => {
  let busy: Stand;
  let port = '';
  before(async () => {
    busy = await silentServer(); // a port in use
    port = String(busy.port);
  });
  after(() => busy.close());

  test('seq next with an unknown tag and no store: an error, no ./idforge.db', async () => {
    const r = await inEmptyDir(['seq', 'next', 'orders']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /no idforge store at .*idforge\.db: run `idforge migrate --store sqlite:.*` or start `idforge serve` first/,
    );
    assert.match(r.stderr, /\[IDF_STORE_PATH\]/);
    assert.deepEqual(r.left, []);
  });

  for (const argv of [['seq', 'show'], ['seq', 'step', 'orders', '5'], ['leases']]) {
    test(`read-only ${argv.join(' ')}: no ./idforge.db`, async () => {
      const r = await inEmptyDir(argv);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /no idforge store at .*\[IDF_STORE_PATH\]/);
      assert.deepEqual(r.left, []);
    });
  }

  test('backfill of a sqlite file that does not exist: no file', async () => {
    const r = await inEmptyDir([
      'backfill',
      '--store',
      'sqlite:app.db',
      '--table',
      'users',
      '--column',
      'uid',
      '--key-column',
      'id',
      '--scheme',
      'uuidv7',
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /no idforge store at .*app\.db/);
    assert.deepEqual(r.left, []);
  });

  test('serve on a port in use: the port message, no ./idforge.db', async () => {
    const r = await inEmptyDir(['serve', '--host', '127.0.0.1', '--port', port]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port} is in use.*\\[EADDRINUSE\\]`));
    assert.doesNotMatch(r.stdout, /created a new store/);
    assert.deepEqual(r.left, []);
  });

  test('serve --migrate on a port in use: no schema created on PostgreSQL', {
    skip: pgSkip,
  }, async () => {
    const url = freshNamespaceUrl('postgres', 'i20serve');
    try {
      const r = await inEmptyDir([
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        port,
        '--store',
        url,
        '--migrate',
      ]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /\[EADDRINUSE\]/);
      assert.equal(await pgSchemaExists(url), false, 'the schema was created');
      assert.deepEqual(r.left, []);
    } finally {
      await dropNamespaces('postgres', [url]);
    }
  });

  test('serve --migrate --sequences mysql on a port in use: no table on MariaDB', {
    skip: mySkip || pgSkip,
  }, async () => {
    const seq = freshNamespaceUrl('mysql', 'i20serve');
    try {
      const r = await inEmptyDir([
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        port,
        '--sequences',
        seq,
        '--migrate',
      ]);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(await mysqlTables(seq), []);
      assert.deepEqual(r.left, []);
    } finally {
      await dropNamespaces('mysql', [seq]);
    }
  });

  test('seq next with an unknown tag on PostgreSQL: nothing created', {
    skip: pgSkip,
  }, async () => {
    const url = freshNamespaceUrl('postgres', 'i20seq');
    try {
      const r = await inEmptyDir(['seq', 'next', 'orders', '--store', url]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(await pgSchemaExists(url), false);
      assert.deepEqual(r.left, []);
    } finally {
      await dropNamespaces('postgres', [url]);
    }
  });
});

describe('issue 20: store URLs of the wrong kind name what each role accepts', () => {
  const LEASES = 'sqlite:, file:, postgres://, redis://, etcd://';
  const cases: { argv: string[]; message: RegExp }[] = [
    {
      argv: ['serve', '--store', 'bogus://x'],
      message: new RegExp(
        `--store: unknown store scheme "bogus:"; known: sqlite:, file:, postgres://, mysql://, redis://, etcd://\\. --store needs one of ${LEASES}`,
      ),
    },
    {
      argv: ['serve', '--store', 'mysql://root@127.0.0.1/test'],
      message: new RegExp(
        `--store: mysql:// holds segments: use it with --sequences; --store needs one of ${LEASES}`,
      ),
    },
    {
      argv: ['serve', '--sequences', 'etcd://127.0.0.1:2379'],
      message:
        /--sequences: etcd:\/\/ holds leases: use it with --store; --sequences needs one of sqlite:, postgres:\/\/, mysql:\/\/, redis:\/\//,
    },
    {
      argv: ['serve', '--marks', 'redis://127.0.0.1:6379'],
      message:
        /--marks: redis:\/\/ holds leases and counters: use it with --store or --sequences; --marks needs one of sqlite:, postgres:\/\//,
    },
    {
      argv: ['gen', 'snowflake', '--store', 'bogus://x'],
      message: new RegExp(
        `unknown store scheme "bogus:"; known: .*\\. --store needs one of ${LEASES}`,
      ),
    },
    {
      argv: ['gen', 'snowflake', '--store', 'mysql://root@127.0.0.1/test'],
      message: new RegExp(
        `mysql:// holds segments: use it with --sequences; --store needs one of ${LEASES}`,
      ),
    },
    {
      argv: ['migrate', '--store', 'bogus://x'],
      message:
        /unknown store scheme "bogus:"; known: sqlite:, file:, postgres:\/\/, mysql:\/\/, redis:\/\/, etcd:\/\//,
    },
  ];
  for (const { argv, message } of cases) {
    test(argv.join(' '), async () => {
      const r = await inEmptyDir(argv);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.deepEqual(r.left, []);
    });
  }
});

// Issue 33, item 2: serve's settings across keys (a worker range past the layout's field, a
// node field's value past its bits, a layout whose node fields leave no single worker ID) were
// checked by createSnowflakeNode after ./idforge.db was created, in its option names
// ("createSnowflakeNode workerIds min", "set workerField"). They are checked with the rest of
// the configuration now: exit 2, nothing created, the flag (or variable) the user typed named.
describe('issue 33: serve checks every setting before it creates a store', () => {
  const cases: { argv: string[]; env?: Record<string, string>; message: RegExp }[] = [
    {
      argv: ['--workers', '2000'],
      message: /--workers 2000: layout "default" has worker IDs 0-1023 \(its field node\)/,
    },
    {
      argv: ['--layout', 'twitter-2010', '--fields', 'datacenter=99'],
      message: /--fields datacenter=99: layout "twitter-2010" holds datacenter 0-31/,
    },
    {
      argv: ['--layout', 'twitter-2010'],
      message:
        /--layout twitter-2010 has node fields datacenter, worker: fix all but the one whose worker ID this node leases, e.g. --fields datacenter=0/,
    },
    {
      argv: [],
      env: { IDFORGE_LAYOUT: 'twitter-2010', IDFORGE_FIELDS: 'datacenter=1,worker=2' },
      message:
        /IDFORGE_FIELDS=datacenter=1,worker=2 fixes every node field of layout "twitter-2010" \(datacenter, worker\): leave out the one whose worker ID this node leases/,
    },
    {
      argv: ['--layouts', 'twitter-2010', '--fields', 'datacenter=1', '--workers', '0-100'],
      message: /--workers 0-100: layout "twitter-2010" has worker IDs 0-31 \(its field worker\)/,
    },
  ];
  for (const { argv, env, message } of cases) {
    const name = [...Object.entries(env ?? {}).map(([k, v]) => `${k}=${v}`), ...argv].join(' ');
    test(`serve ${name}: exit 2 naming the setting, no ./idforge.db`, async () => {
      const r = await inEmptyDir(['serve', '--host', '127.0.0.1', '--port', '0', ...argv], env);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /createSnowflakeNode|workerField|SnowflakeGenerator/);
      assert.deepEqual(r.left, []);
    });
  }
});
