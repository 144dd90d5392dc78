// Settings of `idforge serve`: defaults, precedence (file < env < flags), and a message naming
// the key and the fix for every unknown key or bad value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ConfigError,
  envName,
  flagName,
  resolveConfig,
} from '../../packages/server/src/service/index.js';

const file = (values: unknown) => ({ path: 'idforge.json', values });

function rejects(fn: () => unknown, key: RegExp, message: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.match(e.key, key);
    assert.match(e.message, message);
    return true;
  });
}

test('defaults: the embedded SQLite store holds leases and segments', () => {
  const c = resolveConfig();
  assert.equal(c.store, 'sqlite:idforge.db');
  assert.equal(c.sequences, 'sqlite:idforge.db');
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.maxCount, 10_000);
  assert.deepEqual(c.tokens, []);
});

test('a lease store that holds no segments leaves sequences off unless --sequences is given', () => {
  assert.equal(resolveConfig({ flags: { store: 'redis://127.0.0.1:6379' } }).sequences, null);
  const c = resolveConfig({
    flags: { store: 'etcd://127.0.0.1:2379', sequences: 'mysql://root@127.0.0.1/test' },
  });
  assert.equal(c.sequences, 'mysql://root@127.0.0.1/test');
});

test('precedence: file < IDFORGE_* environment < flags', () => {
  const sources = {
    file: file({ port: 9001, maxCount: 50 }),
    env: { IDFORGE_PORT: '9002', IDFORGE_TTL_MS: '3000' },
    flags: { port: '9003' },
  };
  const c = resolveConfig(sources);
  assert.equal(c.port, 9003);
  assert.equal(c.maxCount, 50);
  assert.equal(c.ttlMs, 3000);
  assert.equal(envName('maxEventLoopDelayMs'), 'IDFORGE_MAX_EVENT_LOOP_DELAY_MS');
  assert.equal(flagName('maxEventLoopDelayMs'), '--max-event-loop-delay-ms');
});

test('unknown keys and bad values name the key, the source and the fix', () => {
  rejects(
    () => resolveConfig({ file: file({ prot: 1 }) }),
    /^prot$/,
    /unknown key "prot".*known keys: host, port/,
  );
  rejects(() => resolveConfig({ file: file([1]) }), /config/, /expected a JSON object/);
  rejects(
    () => resolveConfig({ env: { IDFORGE_PORT: 'eighty' } }),
    /IDFORGE_PORT/,
    /IDFORGE_PORT: expected an integer in \[0, 65535\], got "eighty"/,
  );
  rejects(
    () => resolveConfig({ flags: { maxCount: '0' } }),
    /--max-count/,
    /expected an integer in \[1, 1000000\]/,
  );
  rejects(
    () => resolveConfig({ flags: { store: 'mysql://root@h/db' } }),
    /--store/,
    /mysql:\/\/ holds segments: use it with --sequences; --store needs one of sqlite:/,
  );
  rejects(() => resolveConfig({ flags: { store: 'nosuch://x' } }), /--store/, /nosuch/);
  rejects(
    () => resolveConfig({ flags: { layout: 'twiter' } }),
    /--layout/,
    /unknown layout "twiter"; one of/,
  );
  rejects(
    () => resolveConfig({ flags: { layout: 'twiter-2010' } }),
    /--layout/,
    /unknown layout "twiter-2010" \(did you mean twitter-2010\?\); one of/,
  );
  rejects(() => resolveConfig({ flags: { workers: '9-3' } }), /--workers/, /MIN-MAX/);
  rejects(() => resolveConfig({ flags: { logLevel: 'loud' } }), /--log-level/, /one of fatal/);
  rejects(
    () => resolveConfig({ flags: { protectOps: 'maybe' } }),
    /--protect-ops/,
    /true or false/,
  );
});

test('tokens: from the file, each checked; IDFORGE_ADMIN_TOKEN adds an admin', () => {
  const t = { name: 'app', token: 'a'.repeat(20), schemes: ['uuidv7'] };
  const c = resolveConfig({
    file: file({ tokens: [t] }),
    env: { IDFORGE_ADMIN_TOKEN: 'b'.repeat(24) },
  });
  assert.deepEqual(
    c.tokens.map((x) => [x.name, x.admin, x.schemes, x.tags]),
    [
      ['app', false, ['uuidv7'], ['*']],
      ['env-admin', true, ['*'], ['*']],
    ],
  );
  rejects(
    () => resolveConfig({ file: file({ tokens: [{ ...t, token: 'short' }] }) }),
    /tokens\[0\]\.token/,
    /at least 16 random characters/,
  );
  rejects(
    () => resolveConfig({ file: file({ tokens: [{ ...t, role: 'x' }] }) }),
    /tokens\[0\]\.role/,
    /unknown key/,
  );
  rejects(() => resolveConfig({ file: file({ tokens: [t, t] }) }), /name/, /used twice/);
  rejects(
    () => resolveConfig({ file: file({ tokens: [t, { ...t, name: 'b' }] }) }),
    /tokens/,
    /same secret/,
  );
  assert.equal(
    resolveConfig({ env: { IDFORGE_TOKENS: '[]' } }).tokens.length,
    0,
    'tokens are never read from a variable',
  );
});
