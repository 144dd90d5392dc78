// `idforge advise`: one test per branch of the decision table, the --json shape, the defaults
// it assumes and says it assumed, and bad flag values (exit 2 naming the flag and the values).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { run } from '../../packages/server/src/cli/index.js';
import { cli } from '../helpers/cli.js';

interface Advice {
  scheme: string;
  layout: string | null;
  summary: string;
  key: string;
  publicId: string | null;
  reasons: string[];
  caveats: string[];
  alternatives: string[];
  start: string[];
  docs: string[];
  answers: Record<string, unknown>;
  assumed: string[];
  measure: string;
}

async function adviseJson(...flags: string[]): Promise<Advice> {
  const r = await cli(['advise', ...flags, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.lines.length, 1, 'one JSON line');
  return JSON.parse(r.stdout) as Advice;
}

const ALL = ['--public', 'no', '--partitioned', 'no', '--gap-free', 'no'];

describe('idforge advise: the decision table', () => {
  test('a 16-byte key is fine: UUIDv7, ULID as the text alternative', async () => {
    const a = await adviseJson(
      '--writers',
      '5',
      '--key-size',
      'ok',
      '--node-ids',
      'managed',
      ...ALL,
    );
    assert.equal(a.scheme, 'uuidv7');
    assert.equal(a.layout, null);
    assert.match(a.key, /^16 bytes/);
    assert.ok(a.alternatives.some((x) => x.startsWith('ULID')));
    assert.ok(a.start.includes('idforge gen uuidv7'));
    assert.deepEqual(a.docs, ['docs/layouts.md']);
  });

  test('range-partitioned: UUIDv4, because time-ordered keys make one hot partition', async () => {
    const a = await adviseJson('--writers', '5', '--key-size', 'ok', '--partitioned', 'range');
    assert.equal(a.scheme, 'uuidv4');
    assert.ok(a.reasons.some((r) => /hot spot/.test(r)));
    assert.ok(!a.caveats.some((c) => /hash/.test(c)));
    const m = await adviseJson('--key-size', 'matters', '--partitioned', 'range');
    assert.equal(m.scheme, 'uuidv4');
    assert.ok(
      m.caveats.some((c) => /partition by its hash/.test(c)),
      'an 8-byte way out',
    );
  });

  test('one writer, 8-byte key: a segment sequence (or the identity column)', async () => {
    const a = await adviseJson('--writers', '1', '--key-size', 'matters', '--node-ids', 'managed');
    assert.equal(a.scheme, 'sequence');
    assert.match(a.key, /^8 bytes/);
    assert.ok(a.start.some((s) => s.startsWith('idforge seq create orders')));
    assert.deepEqual(a.docs, ['docs/sequences.md']);
  });

  test('many writers, managed node IDs: Snowflake default with idforge/coord leases', async () => {
    const a = await adviseJson(
      '--writers',
      '1024',
      '--key-size',
      'matters',
      '--node-ids',
      'managed',
    );
    assert.equal(a.scheme, 'snowflake');
    assert.equal(a.layout, 'default');
    assert.ok(a.start.includes('idforge gen snowflake --store postgres://db/ids'));
    assert.deepEqual(a.docs, ['docs/layouts.md', 'docs/coordination.md']);
  });

  test('more writers than the default layout has nodes: the sonyflake layout', async () => {
    const a = await adviseJson(
      '--writers',
      '1025',
      '--key-size',
      'matters',
      '--node-ids',
      'managed',
    );
    assert.equal(a.scheme, 'snowflake');
    assert.equal(a.layout, 'sonyflake');
    assert.ok(
      a.start.includes('idforge gen snowflake --layout sonyflake --store postgres://db/ids'),
    );
  });

  test('unmanaged node IDs, or more writers than any layout: a shared segment sequence', async () => {
    const a = await adviseJson(
      '--writers',
      '3',
      '--key-size',
      'matters',
      '--node-ids',
      'unmanaged',
    );
    assert.equal(a.scheme, 'sequence');
    assert.ok(a.reasons.some((r) => /cannot be managed/.test(r)));
    assert.ok(a.alternatives.some((x) => /ticket-server pair/.test(x)));
    assert.ok(
      a.alternatives.some((x) => /idforge serve.*any language/.test(x)),
      'the service',
    );
    assert.match(a.measure, /--schemes bigint,sequence,uuidv7,uuidv4$/);
    assert.deepEqual(a.docs, ['docs/sequences.md', 'docs/sequences-tickets.md']);
    const many = await adviseJson(
      '--writers',
      '65537',
      '--key-size',
      'matters',
      '--node-ids',
      'managed',
    );
    assert.equal(many.scheme, 'sequence');
    assert.ok(many.reasons.some((r) => /65,536 nodes/.test(r)));
  });

  test('public IDs: a UUIDv4 beside the key, whatever the key', async () => {
    const a = await adviseJson(
      '--writers',
      '4',
      '--key-size',
      'matters',
      '--node-ids',
      'managed',
      '--public',
      'yes',
    );
    assert.equal(a.scheme, 'snowflake');
    assert.equal(a.publicId, 'uuidv4');
    assert.match(a.summary, /UUIDv4 as the public ID/);
    assert.ok(a.reasons.some((r) => /enumerated/.test(r)));
    assert.equal((await adviseJson('--public', 'no')).publicId, null);
  });

  test('gap-free: said plainly that no scheme is, with a counter in the transaction', async () => {
    const a = await adviseJson('--gap-free', 'yes');
    assert.equal(a.scheme, 'uuidv7', 'the key is chosen as before');
    assert.match(a.caveats[0]!, /no distributed ID scheme is gap-free/);
    assert.match(a.caveats[0]!, /same database transaction/);
    const no = await adviseJson('--gap-free', 'no');
    assert.ok(!no.caveats.some((c) => /gap-free/.test(c)));
  });

  test('hash-partitioned: the key stands, with a note on range scans', async () => {
    const a = await adviseJson('--partitioned', 'hash');
    assert.equal(a.scheme, 'uuidv7');
    assert.ok(a.reasons.some((r) => /hash partitioning/.test(r)));
  });
});

describe('idforge advise: output', () => {
  test('--json: every field, the answers, and the defaults it assumed', async () => {
    const a = await adviseJson('--writers', '3');
    assert.deepEqual(Object.keys(a), [
      'scheme',
      'layout',
      'summary',
      'key',
      'publicId',
      'reasons',
      'caveats',
      'alternatives',
      'start',
      'docs',
      'answers',
      'assumed',
      'measure',
    ]);
    assert.deepEqual(a.answers, {
      writers: 3,
      keySize: 'ok',
      nodeIds: 'unmanaged',
      public: 'no',
      partitioned: 'no',
      gapFree: 'no',
    });
    assert.deepEqual(a.assumed, [
      '--key-size ok',
      '--node-ids unmanaged',
      '--public no',
      '--partitioned no',
      '--gap-free no',
    ]);
    assert.equal(
      a.measure,
      'idforge bench db --store URL --rows 1000000 --schemes bigint,uuidv7,uuidv4',
    );
  });

  test('text: recommendation, assumed defaults, reasons, caveats, start, docs, bench db', async () => {
    const r = await cli(['advise']);
    assert.equal(r.code, 0);
    assert.equal(r.lines[0], 'recommended: UUIDv7 as the key');
    assert.match(r.stdout, /^assumed \(not given\): --writers 2, --key-size ok, /m);
    for (const head of ['why:', 'caveats:', 'start with:']) assert.ok(r.lines.includes(head));
    assert.ok(r.lines.includes('  idforge gen uuidv7'));
    assert.ok(r.lines.includes('read: docs/layouts.md'));
    assert.match(
      r.stdout,
      /^then measure on your own database .*\n {2}idforge bench db --store URL --rows 1000000 --schemes bigint,uuidv7,uuidv4$/m,
    );
    const full = await cli([
      'advise',
      '--writers',
      '1',
      '--key-size',
      'ok',
      '--node-ids',
      'managed',
      ...ALL,
    ]);
    assert.doesNotMatch(full.stdout, /assumed/, 'nothing assumed when every question is answered');
    for (const line of full.lines) assert.ok(line.length <= 96, line);
  });

  test('--help and the main help list it', async () => {
    const r = await cli(['advise', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: idforge advise/);
    assert.match((await cli(['--help'])).stdout, /^ {2}advise /m);
  });
});

describe('idforge advise: bad input is a usage error naming the flag and the values', () => {
  const cases: [string[], RegExp][] = [
    [['--writers', '0'], /--writers: expected 1 to 1000000, got 0/],
    [['--writers', 'many'], /--writers: expected an integer from 1 to 1000000, got "many"/],
    [['--key-size', 'big'], /--key-size: expected matters or ok, got "big"/],
    [['--node-ids', 'yes'], /--node-ids: expected managed or unmanaged, got "yes"/],
    [['--public', 'maybe'], /--public: expected yes or no, got "maybe"/],
    [['--partitioned', 'list'], /--partitioned: expected range or hash or no, got "list"/],
    [['--gap-free', ''], /--gap-free: expected yes or no, got ""/],
    [['uuid'], /unexpected argument "uuid"/],
    [['--shards', '2'], /--shards/],
  ];
  for (const [flags, message] of cases) {
    test(flags.join(' '), async () => {
      const r = await cli(['advise', ...flags]);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^idforge advise: /);
      assert.match(r.stderr, message);
    });
  }
});

describe('advise on a terminal: the questions asked one by one', () => {
  /** Runs advise with `answers` as the lines typed; standard input claims to be a terminal. */
  async function typed(answers: string[], ...flags: string[]) {
    let stdout = '';
    let stderr = '';
    const stdin = Object.assign(Readable.from([answers.map((a) => `${a}\n`).join('')]), {
      isTTY: true,
    });
    const code = await run(['advise', ...flags], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      stdin,
    });
    return { code, stdout, stderr };
  }

  test('no flags on a terminal: every question, then the answer of those answers', async () => {
    const r = await typed(['40', 'matters', 'managed', 'no', 'no', 'no']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /How many processes or nodes create IDs\? \[2\]: /);
    assert.match(r.stderr, /Must the numbers be gap-free\? yes\/no \[no\]: /);
    assert.match(r.stdout, /^recommended: Snowflake, layout default/);
    assert.doesNotMatch(r.stdout, /assumed/, 'every question was answered');
  });

  test('an empty line takes the default; a wrong answer is asked again', async () => {
    const r = await typed(['many', '1', '', 'perhaps', '', '', '', '']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /expected an integer from 1 to 1000000, got "many"/);
    assert.match(r.stderr, /expected managed or unmanaged, got "perhaps"/);
    assert.match(r.stdout, /^recommended: UUIDv7 as the key/);
  });

  test('flags answer their questions; the input ending early is a usage error', async () => {
    const r = await typed(['3'], '--interactive', '--key-size', 'matters');
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.stderr, /8-byte key matter/, 'a flag is not asked again');
    assert.match(r.stderr, /standard input ended before every question was answered/);
  });

  test('a flag or --json on a terminal answers at once, without questions', async () => {
    const r = await typed([], '--writers', '1');
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
  });
});
