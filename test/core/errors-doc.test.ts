// Keeps docs/errors.md true to the one code catalogue (src/core/errors.ts): every code
// documented once, with its class, and no documented code that the code base does not define.
// The classes live in the layers that throw them; each is taken from its layer's entry point,
// so a class the docs name but no entry point exports fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as bench from '../../packages/idforge/src/bench/index.js';
import * as client from '../../packages/idforge/src/client/index.js';
import * as coord from '../../packages/idforge/src/coord/index.js';
import * as errorsBase from '../../packages/idforge/src/core/index.js';
import * as hlc from '../../packages/idforge/src/hlc/index.js';
import * as publicIds from '../../packages/idforge/src/public/index.js';
import * as sequences from '../../packages/idforge/src/sequences/index.js';
import * as stores from '../../packages/stores/src/index.js';

const errors = {
  ...errorsBase,
  ...bench,
  ...client,
  ...coord,
  ...hlc,
  ...publicIds,
  ...sequences,
  ...stores,
};

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const rows = doc
  .split('\n')
  .filter((l) => l.startsWith('| `IDF_'))
  .map((l) => l.split('|').map((c) => c.trim()));

test('every error code is documented exactly once, with its class and an HTTP status', () => {
  const codes: string[] = Object.values(errors.ErrorCode);
  const documented = rows.map((r) => r[1]!.replaceAll('`', ''));
  assert.deepEqual([...documented].sort(), [...codes].sort());
  for (const r of rows) {
    assert.match(r[2]!, /^`\w+Error`$/, `class column of ${r[1]}`);
    const cls = (errors as Record<string, unknown>)[r[2]!.replaceAll('`', '')];
    assert.equal(typeof cls, 'function', `${r[2]} is exported by an entry point`);
    assert.match(r[6]!, /^[45]\d\d$/, `HTTP status of ${r[1]}`);
    assert.ok(r[4]!.length > 20, `fix of ${r[1]} says how`);
  }
});

test('each error class carries the code the table gives it', () => {
  const samples: errorsBase.IdforgeError[] = [
    new errors.ClockRollbackError(30, 10),
    new errors.HorizonExceededError('x', 0, 1, 2),
    new errors.MonotonicOverflowError('ulid', 0),
    new errors.InvalidIdError('ulid', 'length', 'too short', 'abc'),
    new errors.InvalidLayoutError('x', 'bad'),
    new errors.StoreUnavailableError('redis', 'redis://127.0.0.1:6379', 'renew'),
    new errors.NoFreeWorkerError('sqlite', 0, 7, 1000),
    new errors.LeaseLostError(3, 'etcd', 'deadline'),
    new errors.NotReadyError('no lease'),
    new errors.BehindMarkError(3, 2000, 1000, 500),
    new errors.ClockSkewError(1500, 1000, 'worker 2'),
    new errors.DuplicateWorkerError(3, ['a', 'b']),
    new errors.UnknownTagError('orders', 'sqlite'),
    new errors.TagExistsError('orders'),
    new errors.SequenceExhaustedError('orders', 2n ** 63n - 1n),
    new errors.CounterRegressedError('orders', 5n, 1000n),
    new errors.DriverMissingError('pg', 'postgres'),
    new errors.StoreNotMigratedError('postgres', 'postgres://u@h/db', 'acquire'),
    new errors.StoreAuthError('mysql', 'mysql://u@h/db', 'connect'),
    new errors.StorePathError('sqlite', '/x/idforge.db', 'no-directory'),
    new errors.ServiceUnavailableError('GET /v1/ids/ulid', [
      { url: 'http://a:1', reason: 'down', status: 503, serverCode: 'X', tried: true },
    ]),
    new errors.ServiceRejectedError(answer(404)),
    new errors.ServiceAuthError(answer(401)),
    new errors.ServiceResponseError('http://a:1', 'GET /v1/ids/ulid', 200, 'not JSON'),
    new errors.ClientClosedError('GET /v1/ids/ulid'),
    new errors.BackfillNoKeyError('sqlite', 'sqlite:x.db', 'orders', 'id', 'is text', []),
    new errors.BackfillTableError('sqlite', 'sqlite:x.db', 'orders', 'pid', 'column-type', 'TEXT'),
    new errors.PublicIdInvalidError('forged', 'check failed', 'inv_1abc', 'inv'),
    new errors.PublicKeyRetiredError(1),
    new errors.PublicKeysInvalidError('no key', 2),
    new errors.HlcDriftError(1_700_000_002_000, 1_700_000_000_000, 500),
    new errors.HlcCounterOverflowError(1_700_000_000_000, 4095, 1000, 1000, 1_699_999_999_000),
    new errors.BenchReportWriteError('/ro/report', 'EROFS: read-only file system'),
  ];
  for (const e of samples) {
    const row = rows.find((r) => r[2] === `\`${e.name}\``);
    assert.ok(row, `${e.name} is in the table`);
    assert.equal(row[1], `\`${e.code}\``);
    assert.ok(e instanceof errorsBase.IdforgeError && e instanceof Error);
  }
});

function answer(status: number): client.ServiceAnswer {
  return {
    url: 'http://a:1',
    operation: 'GET /v1/ids/ulid',
    status,
    serverCode: 'X',
    serverMessage: 'm',
  };
}

test('error messages name the numbers involved', () => {
  const e = new errors.ClockRollbackError(30, 10);
  assert.match(e.message, /30 ms/);
  assert.match(e.message, /10 ms/);
  assert.equal(e.driftMs, 30);
  assert.equal(e.toleranceMs, 10);
  assert.equal(e.name, 'ClockRollbackError');
});
