// Issue 20 §4: one name for one idea across commands, and parse errors in idforge's own words.
// `gen -n 3 --json` failed with Node's raw parseArgs text ("Unknown option '--json'. To
// specify a positional argument starting with a '-', place it at the end of the command after
// '--', as in '-- "--json"", the quote never closed) although inspect, seq show, leases, plan,
// advise, shard, public, bench, backfill and layouts all take --json. Now every command with
// JSON output takes --json (gen's --format json stays as its long form), and a mistake in the
// command line is one line naming the command and the flag, a "did you mean" for a close flag
// or command, the pointer to --help, exit code 2.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';

/** The usage-error shape: exactly `first`, then the pointer to the command's --help; exit 2. */
async function usage(argv: string[], first: string, help = `idforge ${argv[0]} --help`) {
  const r = await cli(argv);
  assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
  assert.equal(r.stdout, '', argv.join(' '));
  assert.equal(r.stderr, `${first}\nRun "${help}" for usage.\n`, argv.join(' '));
  assert.doesNotMatch(r.stderr, /To specify a positional|Option '|ERR_PARSE_ARGS/);
}

test('gen takes --json, like every command with JSON output; --format json is the same', async () => {
  const r = await cli(['gen', 'uuidv7', '-n', '3', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const ids = JSON.parse(r.stdout) as string[];
  assert.equal(ids.length, 3);
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  const long = await cli(['gen', 'snowflake', '--node', '1', '-n', '2', '--format', 'json']);
  assert.equal((JSON.parse(long.stdout) as string[]).length, 2);
  const same = await cli(['gen', 'ulid', '--json', '--format', 'json']);
  assert.equal(same.code, 0, same.stderr);
  await usage(
    ['gen', 'ulid', '--json', '--format', 'hex'],
    'idforge gen: --json is --format json; it cannot be given with --format hex',
  );
  // Without a scheme: the same as without --json, in idforge's words, naming the schemes.
  await usage(
    ['gen', '-n', '3', '--json'],
    'idforge gen: expected a scheme: uuidv4, uuidv7, ulid, ksuid, snowflake or typeid',
  );
});

test('an unknown flag is named with its command, and a close one is suggested', async () => {
  await usage(
    ['gen', 'uuidv7', '--jsn'],
    'idforge gen: unknown flag "--jsn" (did you mean --json?)',
  );
  await usage(
    ['seq', 'show', '--jsno'],
    'idforge seq: unknown flag "--jsno" (did you mean --json?)',
  );
  await usage(
    ['gen', 'ulid', '--monotnic'],
    'idforge gen: unknown flag "--monotnic" (did you mean --monotonic?)',
  );
  await usage(
    ['inspect', 'x', '--lay=discord'],
    'idforge inspect: unknown flag "--lay" (did you mean --layout?)',
  );
  await usage(['gen', 'uuidv7', '--zzzzzz'], 'idforge gen: unknown flag "--zzzzzz"');
  await usage(['gen', 'uuidv7', '-x'], 'idforge gen: unknown flag "-x"');
  // --format on a command whose JSON switch is --json points there.
  await usage(
    ['layouts', '--format', 'json'],
    'idforge layouts: unknown flag "--format" (did you mean --json?)',
  );
  // A flag of another command is not a suggestion here: convert has no JSON output.
  await usage(['convert', 'x', '--to', 'v6', '--json'], 'idforge convert: unknown flag "--json"');
});

test('a missing value, a value on a switch: the flag and the command are named', async () => {
  await usage(['gen', 'uuidv7', '-n'], 'idforge gen: --count (-n): expected a value, got none');
  await usage(
    ['gen', 'uuidv7', '--count'],
    'idforge gen: --count (-n): expected a value, got none',
  );
  await usage(
    ['gen', 'uuidv7', '--count', '--json'],
    'idforge gen: --count (-n): expected a value, got the flag "--json" (a value starting with - is written --count=VALUE)',
  );
  await usage(
    ['inspect', 'x', '--json=1'],
    'idforge inspect: --json takes no value, got "--json=1"',
  );
  await usage(['serve', '--port'], 'idforge serve: --port: expected a value, got none');
  // A bad value and an unexpected positional keep their own words.
  await usage(
    ['gen', 'uuidv7', '-n', 'x'],
    'idforge gen: --count: expected an integer from 1 to 10000000, got "x"',
  );
  await usage(['layouts', 'x'], 'idforge layouts: unexpected argument "x"');
});

test('an unknown command (or help topic) suggests a close command', async () => {
  await usage(
    ['gne', 'uuidv7'],
    'idforge: unknown command "gne" (did you mean gen?)',
    'idforge --help',
  );
  await usage(
    ['inspcet', 'x'],
    'idforge: unknown command "inspcet" (did you mean inspect?)',
    'idforge --help',
  );
  await usage(['frobnicate'], 'idforge: unknown command "frobnicate"', 'idforge --help');
  await usage(
    ['help', 'sqe'],
    'idforge: unknown command "sqe" (did you mean seq or sql?)',
    'idforge --help',
  );
  await usage(
    ['--verison'],
    'idforge: unknown flag "--verison" (did you mean --version?)',
    'idforge --help',
  );
});

test("gen's lease options take serve's names; --ttl and --wait stay the same options", async () => {
  await usage(
    ['gen', 'snowflake', '--ttl-ms', '500'],
    'idforge gen: --workers, --ttl-ms and --acquire-timeout-ms need --store URL',
  );
  await usage(
    ['gen', 'snowflake', '--wait', '5'],
    'idforge gen: --workers, --ttl-ms and --acquire-timeout-ms need --store URL',
  );
  await usage(
    ['gen', 'snowflake', '--store', 'sqlite::memory:', '--ttl', '5'],
    'idforge gen: --ttl-ms: expected 100 to 2147483648, got 5',
  );
  await usage(
    ['gen', 'snowflake', '--ttl-ms', '500', '--ttl', '500'],
    'idforge gen: --ttl-ms and --ttl are the same option: give one',
  );
  const help = await cli(['gen', '--help']);
  assert.match(help.stdout, /--ttl-ms MS .*--ttl is the same/);
  assert.match(help.stdout, /--acquire-timeout-ms MS\n.*\n.*--wait is the same/);
});
