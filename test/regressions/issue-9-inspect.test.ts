// Issue 9 §6/§9, what a new user met with inspect and convert, each as it was reported:
// - `inspect(sf.next())` threw a TypeError: a SnowflakeGenerator's bigint was not accepted.
// - `inspect(' 42')` read the Snowflake 42 (the input was trimmed) while `parseUuid(' …')`
//   was an error: two whitespace policies. Now the library rejects it for every scheme.
// - The Nil and Max UUIDs were reported as "version 0" and "version 15".
// - `idforge inspect <hex>` refused the 32 hex digits that `gen --format hex` prints.
// - A 10 MB line was echoed whole in the error (the CLI prefix and a Snowflake range message).
// - `convert --to hex` refused KSUIDs and Snowflakes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidIdError,
  inspect,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';
import { cli } from '../helpers/cli.js';

test('inspect takes a bigint from a SnowflakeGenerator', () => {
  const sf = new SnowflakeGenerator({ fields: { node: 3 } });
  const r = inspect(sf.next());
  assert.equal(r.scheme, 'snowflake');
  assert.equal(r.fields?.node, 3);
});

test('a Snowflake with surrounding whitespace is rejected, as a UUID is', () => {
  assert.throws(
    () => inspect(' 42'),
    (e: unknown) => e instanceof InvalidIdError && e.reason === 'format',
  );
  assert.throws(() => inspect(' 00000000-0000-0000-0000-000000000000'), InvalidIdError);
});

test('Nil and Max are named, not versions 0 and 15', () => {
  assert.equal(inspect('00000000-0000-0000-0000-000000000000').special, 'nil');
  assert.equal(inspect('ffffffff-ffff-ffff-ffff-ffffffffffff').special, 'max');
  assert.equal(inspect('ffffffff-ffff-ffff-ffff-ffffffffffff').version, undefined);
});

test('what gen --format hex prints, inspect reads', async () => {
  const hex = (await cli(['gen', 'uuidv4', '--format', 'hex'])).lines[0]!;
  const r = await cli(['inspect', '--json', hex]);
  assert.equal(r.code, 0);
  assert.equal(JSON.parse(r.lines[0]!).version, 4);
});

test('a 10 MB line is not echoed whole', async () => {
  const line = '9'.repeat(10 * 1024 * 1024);
  for (const argv of [
    ['inspect', line],
    ['convert', '--to', 'hex', line],
  ]) {
    const r = await cli(argv);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.length < 400, `${argv[0]}: ${r.stderr.length} characters on stderr`);
  }
});

test('convert --to hex takes a KSUID and a Snowflake', async () => {
  const r = await cli(['convert', '--to', 'hex', '0ujtsYcgvSTl8PAuAdqWYSMnLOv', '42']);
  assert.deepEqual(r.lines, ['0669f7efb5a1cd34b5f99d1154fb6853345c9735', '000000000000002a']);
});
