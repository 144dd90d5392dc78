// The status each error code answers with is the one docs/errors.md's "HTTP status" column
// gives it, and every service code is documented in docs/service.md.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CATEGORY, ErrorCode } from '../../packages/idforge/src/core/index.js';
import {
  CountersKeepNoTagsError,
  NoSequencesError,
} from '../../packages/server/src/service/domain/sequences.js';
import {
  describeFailure,
  HttpError,
  SERVICE_CATEGORY,
  statusOf,
} from '../../packages/server/src/service/http/errors.js';
import {
  CATEGORY_STATUS,
  CODE_STATUS,
  ServiceCode,
} from '../../packages/server/src/service/index.js';

const errorsDoc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const serviceDoc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');

test('every IdforgeError code maps to the HTTP status docs/errors.md gives it', () => {
  const documented = new Map<string, number>();
  for (const line of errorsDoc.split('\n')) {
    if (!line.startsWith('| `IDF_')) continue;
    const cells = line.split('|').map((c) => c.trim());
    documented.set((cells[1] as string).replaceAll('`', ''), Number(cells[6]));
  }
  const mapped = new Map<string, number>(Object.entries(CODE_STATUS));
  // Every code, the client's included (their column is what an application answers).
  assert.deepEqual(
    [...mapped.keys()].sort(),
    [...documented.keys()].sort(),
    'docs/errors.md lists every code',
  );
  for (const [code, status] of documented) assert.equal(mapped.get(code), status, code);
  assert.deepEqual(
    Object.keys(ERROR_CATEGORY).sort(),
    Object.values(ErrorCode).sort(),
    'every code has a category',
  );
});

test('every service code is documented in docs/service.md', () => {
  for (const code of Object.values(ServiceCode)) {
    assert.ok(serviceDoc.includes(`\`${code}\``), `${code} in docs/service.md`);
  }
});

test("every code an answer carries has a category, and its status is the category's", () => {
  const rows = new Map<string, number>();
  for (const line of serviceDoc.split('\n')) {
    const m = /^\| `(IDF_[A-Z_]+)` \| (\d+)/.exec(line);
    if (m !== null) rows.set(m[1]!, Number(m[2]));
  }
  assert.deepEqual(Object.keys(SERVICE_CATEGORY).sort(), Object.values(ServiceCode).sort());
  for (const code of Object.values(ServiceCode)) {
    assert.ok(SERVICE_CATEGORY[code] in CATEGORY_STATUS, code);
    // The first status of the row is the one the service's own HttpError answers with.
    assert.equal(statusOf(code), rows.get(code), `${code}: docs/service.md's status`);
    const e = new HttpError(code, 'x');
    assert.deepEqual(describeFailure(e), { status: statusOf(code), code, message: 'x' });
  }
  for (const code of Object.values(ErrorCode)) assert.equal(statusOf(code), CODE_STATUS[code]);
});

test("the sequence registry's own errors carry their code, and their status from its category", () => {
  const none = new NoSequencesError();
  assert.equal(none.code, ServiceCode.NO_SEQUENCES);
  assert.equal(none.statusCode, 404);
  assert.match(none.message, /start it with --sequences URL/);
  const counters = new CountersKeepNoTagsError('creating a tag');
  assert.equal(counters.code, ServiceCode.BAD_REQUEST);
  assert.equal(counters.statusCode, 400);
  assert.match(counters.message, /^creating a tag: Redis counters have no stored tags/);
});
