// `idforge serve` as a user runs it: --help lists every setting, a bad setting exits 2 naming
// it, and a real process started on the embedded store serves, then on SIGTERM finishes,
// releases its lease and exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONFIG_KEYS, flagName, TOKEN_KEYS } from '../../packages/server/src/service/index.js';
import { openLeaseStore } from '../../packages/stores/src/index.js';
import { BINS, loader } from '../helpers/bins.js';
import { cli } from '../helpers/cli.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { spawnService } from '../helpers/service.js';
import { serviceSkip } from '../helpers/services.js';
import { silentServer } from '../helpers/tcp.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

test('serve --help lists every setting with its variable', async () => {
  const r = await cli(['serve', '--help']);
  assert.equal(r.code, 0);
  for (const key of Object.keys(CONFIG_KEYS)) {
    if (key === 'tokens') continue;
    assert.ok(r.stdout.includes(flagName(key)), `help lists ${flagName(key)}`);
  }
  assert.match(r.stdout, /IDFORGE_ADMIN_TOKEN/);
  // Issue 32 §15: the tokens' keys, `scopes` included (it was left out).
  const keys = /"tokens":\[\{([^\]]*)\}\]/.exec(r.stdout.replace(/\s+/g, ''))?.[1];
  assert.deepEqual(
    keys?.split(',').map((k) => JSON.parse(k)),
    [...TOKEN_KEYS],
    'token keys',
  );
});

test('a bad setting exits 2 and names it; an unknown flag too', async () => {
  const port = await cli(['serve', '--port', 'http']);
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--port: expected an integer in \[0, 65535\], got "http"/);
  const env = await cli(['serve'], '', { IDFORGE_MAX_COUNT: '-5' });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /IDFORGE_MAX_COUNT/);
  const flag = await cli(['serve', '--prot', '1']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--prot/);
  const file = await cli(['serve', '--config', '/nonexistent/idforge.json']);
  assert.equal(file.code, 2);
  assert.match(file.stderr, /cannot read \/nonexistent\/idforge.json/);
});

test('a real process: serves on the embedded store, SIGTERM releases the lease and exits 0', async () => {
  const t = tempDir();
  const db = join(t.dir, 'idforge.db');
  const p = spawnService(['--store', `sqlite:${db}`], {}, t.dir);
  try {
    const url = await p.ready;
    const r = await fetch(`${url}/v1/ids/snowflake?count=5`);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { ids: string[] }).ids.length, 5);
    assert.ok(
      p.logs.some((l) => /worker ID \d+ leased/.test(String(l.msg))),
      'the lease is logged',
    );
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
    assert.ok(p.logs.some((l) => /leases released/.test(String(l.msg))));
    const store = await openLeaseStore(`sqlite:${db}`);
    try {
      const leases = await store.list();
      assert.deepEqual(leases, [], 'no lease is left behind');
      assert.ok(((await store.readMark(0)) ?? 0) > 0, 'the mark was recorded');
    } finally {
      await store.close();
    }
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    t.remove();
  }
});

test('JSON logs (standard output not a terminal): one line says where it listens', async () => {
  const t = tempDir();
  const p = spawnService(['--store', `sqlite:${join(t.dir, 'idforge.db')}`], {}, t.dir);
  try {
    await p.ready;
    const said = p.logs.filter((l) => /listening/i.test(String(l.msg)));
    assert.equal(said.length, 1, JSON.stringify(said));
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
    t.remove();
  }
});

test('on a terminal the start is one human line: address, store, dashboard, docs; Ctrl-C stops', async () => {
  const t = tempDir();
  const db = join(t.dir, 'idforge.db');
  const command = [
    process.execPath,
    '--import',
    loader,
    BINS['idforge-server'],
    '--port',
    '0',
    '--store',
    `sqlite:${db}`,
  ];
  // script(1) gives the server a pseudo-terminal, as a user's shell does. It runs the command
  // through $SHELL; `exec` makes the server that shell's process, so the exit code is the
  // server's: a dash left waiting would itself die of the Ctrl-C (130) after a clean stop.
  const line = `exec ${command.map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd: t.dir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  try {
    await waitFor(() => /\/docs/.test(out) || child.exitCode !== null, 'the start line', 60_000);
    const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '');
    assert.equal(lines.length, 1, out);
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out)?.[0];
    assert.ok(url !== undefined, out);
    assert.ok(out.includes(db), `names the store: ${out}`);
    assert.ok(out.includes(`dashboard ${url}/`) && out.includes(`${url}/docs`), out);
    child.stdin.write('\x03'); // Ctrl-C on the terminal: SIGINT to the server
    assert.equal(await exited, 0, out);
    assert.match(out, /leases released/);
  } finally {
    child.kill('SIGKILL');
    t.remove();
  }
});

test('logs name the store but never its password, nor any token', async (t) => {
  const skip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
  if (skip) return t.skip(skip);
  const secret = 's3cret-pw-in-url';
  const token = 'tok-0123456789abcdef-never-logged';
  const url = freshNamespaceUrl(
    'postgres',
    'redact',
    `postgres://postgres:${secret}@127.0.0.1:5432/test`,
  );
  const p = spawnService(['--store', url, '--migrate'], { IDFORGE_ADMIN_TOKEN: token });
  try {
    const base = await p.ready;
    const ok = await fetch(`${base}/v1/leases`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    const bad = await fetch(`${base}/v1/leases`, {
      headers: { authorization: `Bearer ${token}x` },
    });
    assert.equal(bad.status, 401);
    const status = (await (await fetch(`${base}/v1/status`)).json()) as {
      service: { store: string };
    };
    assert.ok(!status.service.store.includes(secret), status.service.store);
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
    const text = JSON.stringify(p.logs) + p.stderr;
    assert.ok(text.includes('127.0.0.1:5432'), 'the store is named');
    assert.ok(!text.includes(secret), 'no password in the logs');
    assert.ok(!text.includes(token.slice(0, 20)), 'no token in the logs');
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    await dropNamespaces('postgres', [url]);
  }
});

test('a port in use: exit 1 naming the address and the fix; the lease taken meanwhile is released', async () => {
  const t = tempDir();
  const taken = await silentServer();
  const { port } = taken;
  try {
    const db = join(t.dir, 'idforge.db');
    const r = await cli([
      'serve',
      '--port',
      String(port),
      '--store',
      `sqlite:${db}`,
      '--log-level',
      'silent',
    ]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`127\\.0\\.0\\.1:${port} is in use: .*pick another --port \\[EADDRINUSE\\]`),
    );
    const store = await openLeaseStore(`sqlite:${db}`);
    try {
      assert.deepEqual(await store.list(), []);
    } finally {
      await store.close();
    }
  } finally {
    await taken.close();
    t.remove();
  }
});
