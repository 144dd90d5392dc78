// Issue 35: a new ID scheme is its module, its descriptor and one line of the registry
// (packages/idforge/src/core/schemes/registry.ts). The fixture scheme `rid`
// (fixtures/rid-scheme.ts) is added to a copy of the real registry, its import and its entry
// the only lines added, and a child process whose imports of the registry get the copy asks
// every consumer about it: the wire contract, inspect, the CLI's gen/inspect/convert and
// help, shard keys, the bench's key list, the server's route, OpenAPI enum and dashboard,
// and the client's check.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loader } from '../helpers/bins.js';
import { suiteTempDir } from '../helpers/temp.js';

const here = new URL('./', import.meta.url);
const schemes = new URL('../../packages/idforge/src/core/schemes/', import.meta.url);
const ENTRY = '  hlcScheme,\n';

/** The real registry with the fixture's import and entry added, its imports made absolute. */
function registryWithFixture(): { text: string; added: string[] } {
  const real = readFileSync(new URL('registry.ts', schemes), 'utf8');
  assert.ok(real.includes(ENTRY), 'the registry lists hlcScheme last');
  const absolute = real.replace(
    /from '(\.\.?\/[\w/-]+)\.js'/g,
    (_m, path: string) => `from '${new URL(`${path}.ts`, schemes).href}'`,
  );
  const added = [
    `import { ridScheme } from '${new URL('fixtures/rid-scheme.ts', here).href}';`,
    '  ridScheme,',
  ];
  const text = `${added[0]}\n${absolute.replace(ENTRY, `${ENTRY}${added[1]}\n`)}`;
  return { text, added };
}

test('a scheme added by one registry line appears in every consumer of the registry', () => {
  const dir = suiteTempDir('idforge-registry-');
  const { text, added } = registryWithFixture();
  const copy = join(dir, 'registry.ts');
  writeFileSync(copy, text);
  const real = readFileSync(new URL('registry.ts', schemes), 'utf8').split('\n');
  const extra = text.split('\n').filter((l) => !real.includes(l) && !l.includes('from '));
  assert.deepEqual(extra, [added[1]], 'the copy differs by the entry (and the imports)');
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      loader,
      '--import',
      fileURLToPath(new URL('fixtures/registry-register.mjs', here)),
      fileURLToPath(new URL('fixtures/registry-child.ts', here)),
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, IDFORGE_TEST_REGISTRY: pathToFileURL(copy).href },
    },
  );
  assert.equal(child.status, 0, child.stderr);
  const r = JSON.parse(child.stdout);
  assert.deepEqual(r.served, ['uuidv4', 'uuidv7', 'ulid', 'ksuid', 'snowflake', 'hlc', 'rid']);
  assert.equal(r.hints.at(-1), 'rid');
  assert.deepEqual(r.inspected, {
    input: 'rid-00000000002a',
    scheme: 'rid',
    value: 'rid-00000000002a',
    hex: '00000000002a',
  });
  assert.match(r.undetected, /or a RID \(rid- and 12 hex digits\)/);
  assert.equal(r.gen, 'rid-00000000002a\nrid-00000000002b\n');
  assert.match(r.genHelp, /^ {2}rid {9}test-only RID/m);
  assert.match(r.genHelp, /^ {2}--rid-start N {10}rid: the counter to start after$/m);
  assert.equal(r.genElsewhere.code, 2);
  assert.match(r.genElsewhere.err, /--rid-start applies to rid only/);
  assert.equal(JSON.parse(r.inspectCli).scheme, 'rid');
  assert.match(r.inspectHelp, /\(UUID, ULID, KSUID, Snowflake, RID or TypeID\)/);
  assert.match(r.inspectHelp, /snowflake, rid, typeid/);
  assert.match(r.mainHelp, /generate IDs: uuidv4, uuidv7, ulid, ksuid, snowflake, rid, typeid/);
  assert.equal(r.convert, '00000000002a\n');
  assert.ok(Number.isInteger(r.bucket) && r.bucket >= 0 && r.bucket < 16);
  assert.deepEqual(r.bench.all.slice(0, 4), ['bigint', 'sequence', 'snowflake', 'rid']);
  assert.ok(r.bench.sqlite.includes('rid'));
  assert.deepEqual(r.bench.asked, ['rid']);
  assert.equal(r.service.ids.ids.length, 3);
  for (const id of r.service.ids.ids) assert.match(id, /^rid-[0-9a-f]{12}$/);
  assert.ok(r.service.enum.includes('rid'), 'the OpenAPI enum of {scheme} lists rid');
  assert.match(r.service.page, /ID \(UUID, ULID, KSUID, Snowflake or RID\)/);
  assert.equal(r.service.fetched.length, 2);
});
