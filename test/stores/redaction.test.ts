// Issue 8, §2 and §4: passwords leaked in error messages, and messages cut strings inside a
// surrogate pair.
//
// Cause: redactUrl was one regular expression, `scheme://user:PASSWORD@` with the password
// ending at the first `@` or `/`, so a password in the query (`?password=`, which node-postgres,
// mysql2 and ioredis all honour), an unencoded `@` in the password (the drivers end the user
// information at the last `@`), and any URL it could not match (an unencoded `/`) went through
// whole; storeScheme, sqlite: and file: errors quoted the raw URL. Now
// packages/stores/src/redact.ts parses as the drivers do, masks the password and every
// credential-like parameter, and replaces an unparsable URL with a placeholder naming the part
// that is wrong.
// describe() cut at 37 UTF-16 units; it now cuts between code points.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe as describeValue, rangeError } from '../../packages/idforge/src/core/internal.js';
import { backendProtocols } from '../../packages/stores/src/backend.js';
import { backends } from '../../packages/stores/src/backends.js';
import {
  openCounterStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
  openTicketServers,
} from '../../packages/stores/src/open.js';
import { openSequence } from '../../packages/stores/src/open-sequence.js';
import { redactOwnUrl } from '../../packages/stores/src/redact.js';
import { redactUrl, storeScheme } from '../../packages/stores/src/url.js';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';
import {
  assertNoSecret,
  HOST,
  MARKER,
  SERVER_SCHEMES,
  type SecretUrl,
  secretUrlArb,
} from './redaction-urls.js';

const dir = suiteTempDir('idforge-redaction-');

/** Everything an error shows: its message, String(), and inspect() with its causes. */
function shown(error: unknown): string {
  return [
    error instanceof Error ? error.message : '',
    String(error),
    inspect(error, { depth: 10 }),
  ].join('\n');
}

describe('issue 8: redactUrl', () => {
  test('the three forms of the issue: query password, unencoded "@", unencoded "/"', () => {
    assert.equal(
      redactUrl('postgres://127.0.0.1:1/test?password=S3cret'),
      'postgres://127.0.0.1:1/test?password=***',
    );
    assert.equal(redactUrl('postgres://u:p@S3cret@h/db'), 'postgres://u:***@h/db');
    const slash = redactUrl('postgres://u:p/S3cret@h/db');
    assert.ok(!slash.includes('S3cret') && !slash.includes('p/'), slash);
    assert.match(slash, /^<unparsable postgres URL: .*percent-encoded/);
  });

  test('keeps what makes a message useful: scheme, user, host, port, path, other parameters', () => {
    assert.equal(
      redactUrl('postgresql://idforge:pw@db.example:5433/app?namespace=ns&sslmode=require'),
      'postgresql://idforge:***@db.example:5433/app?namespace=ns&sslmode=require',
    );
    assert.equal(redactUrl('redis://:pw@127.0.0.1:6379/2'), 'redis://:***@127.0.0.1:6379/2');
    assert.equal(redactUrl('redis://tok@127.0.0.1:6379'), 'redis://***@127.0.0.1:6379');
    assert.equal(redactUrl('etcd://a:2379,b:2379?namespace=x'), 'etcd://a:2379,b:2379?namespace=x');
    assert.equal(redactUrl('sqlite:./x.db?Pass%77ord=pw&n=1'), 'sqlite:./x.db?Pass%77ord=***&n=1');
    assert.equal(redactUrl('file:///tmp/m.json'), 'file:///tmp/m.json');
    assert.equal(redactUrl('postgres://u@/db?host=/run/pg'), 'postgres://u@/db?host=/run/pg');
  });

  test('an unparsable URL is never echoed; the placeholder names the wrong part', () => {
    const cases: [string, RegExp][] = [
      ['mysql://u:S3cret@h:99999/db', /host or port after "@" is not valid/],
      ['postgres://u:S3cret?x@h/db', /an "@" follows the host/],
      ['redis://u:12#S3cret@h', /an "@" follows the host/],
      ['S3cret:pw@host/db', /expected "\/\/" after the scheme/],
      ['127.0.0.1:S3cret', /does not start with a scheme/],
    ];
    for (const [url, why] of cases) {
      const r = redactUrl(url);
      assert.ok(!r.includes('S3cret') && !r.toLowerCase().includes('s3cret'), r);
      assert.match(r, why);
    }
    assert.throws(
      () => storeScheme('u@S3cret'),
      (e: Error) => !e.message.includes('S3cret'),
    );
  });

  test('property: the secret never appears, whatever the scheme and position', () => {
    const all = [...SERVER_SCHEMES, 'sqlite', 'file'] as const;
    fc.assert(
      fc.property(secretUrlArb(all, dir), (c) => {
        const r = redactUrl(c.url);
        assertNoSecret(r, c, 'redactUrl');
        if (c.wellFormed)
          assert.ok(
            r.includes(c.url.startsWith('sqlite') || c.url.startsWith('file') ? dir : HOST),
            r,
          );
      }),
      { numRuns: 3000 },
    );
  });
});

// Issue 35: an adapter may not ask the registry (an import circle), so it redacts its own URL
// by its own backend's rules; a URL of another backend is read as cautiously as any driver
// reads one (a lone user is a password).
describe("issue 35: an adapter's own redaction", () => {
  test("property: redactOwnUrl is redactUrl for the backend's schemes, and shows no secret for another's", () => {
    const all = [...SERVER_SCHEMES, 'sqlite', 'file'] as const;
    fc.assert(
      fc.property(secretUrlArb(all, dir), fc.constantFrom(...backends()), (c, own) => {
        const r = redactOwnUrl(c.url, own);
        assertNoSecret(r, c, `redactOwnUrl by ${own.name}'s rules`);
        const scheme = c.url.slice(0, c.url.indexOf(':')).toLowerCase();
        if (backendProtocols(own).includes(`${scheme}:`)) assert.equal(r, redactUrl(c.url));
      }),
      { numRuns: 3000 },
    );
  });
});

/**
 * Runs `fn` with console.error, warn and log captured (drivers and the default node logger
 * print there: mysql2 names each option it ignores); returns what they printed.
 */
async function printedBy(fn: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const saved = { error: console.error, warn: console.warn, log: console.log };
  const capture = (...args: unknown[]) => {
    lines.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 10 }))).join(' '));
  };
  Object.assign(console, { error: capture, warn: capture, log: capture });
  try {
    await fn();
  } finally {
    Object.assign(console, saved);
  }
  return lines.join('\n');
}

/** Each opener @idforge/stores exports, on a URL; a store that opens is closed again. */
const OPENERS: [string, (url: string) => Promise<{ close(): Promise<void> | void }>][] = [
  ['openLeaseStore', (u) => openLeaseStore(u, { connectTimeoutMs: 500 })],
  ['openSegmentStore', (u) => openSegmentStore(u, { connectTimeoutMs: 500 })],
  ['openMarkStore', (u) => openMarkStore(u, { connectTimeoutMs: 500 })],
  ['openCounterStore', (u) => openCounterStore(u, { connectTimeoutMs: 500 })],
  [
    'openSequence',
    (u) => openSequence(u, 'tag', { connectTimeoutMs: 500, marks: 'sqlite::memory:' }),
  ],
  [
    'openTicketServers',
    async (u) => {
      const servers = await openTicketServers([u], { connectTimeoutMs: 500 });
      return { close: async () => void (await Promise.all(servers.map((s) => s.close()))) };
    },
  ],
];

describe('issue 8: errors of the store openers', () => {
  test('property: no opener shows the secret in its error, String() or inspect() with causes', async () => {
    await fc.assert(
      fc.asyncProperty(secretUrlArb([...SERVER_SCHEMES, 'sqlite', 'file'], dir), async (c) => {
        for (const [name, open] of OPENERS) {
          const printed = await printedBy(async () => {
            try {
              const store = await open(c.url);
              await store.close();
            } catch (error) {
              assertNoSecret(shown(error), c, `${name} error`);
            }
          });
          assertNoSecret(printed, c, `${name} console output`);
        }
      }),
      { numRuns: 40 },
    );
  });
});

/** The CLI commands that take --store, run in-process; a throw counts as output too. */
const COMMANDS = [
  ['leases'],
  ['leases', '--json'],
  ['migrate'],
  ['seq', 'show'],
  ['gen', 'snowflake', '-n', '2'],
];

async function runCli(argv: string[]): Promise<string> {
  try {
    const r = await cli(argv);
    return `${r.stdout}\n${r.stderr}`;
  } catch (error) {
    return shown(error);
  }
}

describe('issue 8: CLI output', () => {
  test('property: leases (table and --json), migrate, seq show and gen never print the secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretUrlArb([...SERVER_SCHEMES, 'sqlite', 'file'], dir),
        async (c: SecretUrl) => {
          for (const command of COMMANDS) {
            const [first, ...rest] = command;
            let output = '';
            const printed = await printedBy(async () => {
              output = await runCli([first!, ...rest, '--store', c.url]);
            });
            assertNoSecret(`${output}\n${printed}`, c, command.join(' '));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('issue 8: messages cut strings on code points', () => {
  test('describe() never splits a surrogate pair, at any length and offset', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.nat(3), (s, pad) => {
        const text = `${'x'.repeat(pad)}${s}`;
        const d = describeValue(text);
        assert.ok(!/\p{Cs}/u.test(d), `${JSON.stringify(d)} holds half a surrogate pair`);
        assert.ok(Array.from(d).length <= 'string ""'.length + 40, d);
      }),
      { numRuns: 2000 },
    );
    const emoji = `${'a'.repeat(36)}${'😀'.repeat(10)}`;
    assert.equal(describeValue(emoji), `string "${'a'.repeat(36)}😀..."`);
    assert.equal(
      rangeError('tag', 'x', emoji).message,
      `tag: expected x, got string "${'a'.repeat(36)}😀..."`,
    );
    assert.equal(describeValue('😀'.repeat(40)), `string "${'😀'.repeat(40)}"`);
  });

  test('the marker is not normal output (a control for the leak checks)', () => {
    assert.ok(!redactUrl(`postgres://user:${MARKER}@${HOST}/x`).includes(MARKER));
    assert.ok(`postgres://user:${MARKER}@${HOST}/x`.includes(MARKER));
  });
});
