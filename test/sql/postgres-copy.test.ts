// PostgreSQL: a copy of a database does not mint with the original's node (issue 32, item 6).
// `CREATE DATABASE … TEMPLATE` copies the functions, the node setting and the counter: both
// databases then minted the same IDs. The install records the database's identity (the
// cluster's system identifier and the database's OID); idforge_snowflake() in a copy refuses
// with SQLSTATE 55000 until `idforge sql --apply` chooses a node for it, and the original
// mints on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { serviceSkip } from '../helpers/services.js';
import { onServer, PG_BASE, pgDb, sqlState } from './pg-db.js';

const base = new URL(PG_BASE);
const skip = await serviceSkip('PostgreSQL', base.hostname, Number(base.port || 5432));
const original = pgDb(PG_BASE, 'idforge_sqlorig');
const copy = pgDb(PG_BASE, 'idforge_sqlcopy');

async function mint(db: typeof original): Promise<bigint> {
  const c = await db.client();
  try {
    return BigInt((await c.query('SELECT idforge_snowflake()::text AS id')).rows[0].id);
  } finally {
    await c.end();
  }
}

describe('PostgreSQL: the same node on two databases', { skip }, () => {
  before(() => original.create());
  after(async () => {
    await copy.drop();
    await original.drop();
  });

  test('a CREATE DATABASE … TEMPLATE copy refuses to mint until a node is chosen for it; the original mints on', async () => {
    await mint(original);
    await onServer(PG_BASE, (c) =>
      c.query(`CREATE DATABASE ${copy.name} TEMPLATE ${original.name}`),
    );
    const refused = await mint(copy).then(
      (id) => `minted ${id}`,
      (e: unknown) => `${sqlState(e)} ${(e as Error).message}`,
    );
    assert.match(refused, /^55000 idforge_snowflake: this database is a copy/);
    await mint(original);
    const same = await cli(['sql', '--store', original.url, '--apply', '--node', '1', '--json']);
    assert.equal(JSON.parse(same.stdout).action, 'unchanged', same.stderr);
    const chosen = await cli(['sql', '--store', copy.url, '--apply', '--node', '1', '--json']);
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.equal(JSON.parse(chosen.stdout).action, 'upgraded', 'a copy is never "unchanged"');
    const other = await cli(['sql', '--store', copy.url, '--apply', '--node', '2']);
    assert.equal(other.code, 0, other.stderr);
    const id = await mint(copy);
    assert.equal(Number((id >> 12n) & 1023n), 2, 'the copy mints with its own node');
  });
});
