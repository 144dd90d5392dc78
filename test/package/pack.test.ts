// The published package as a user installs it (issue 9 §5): `npm pack`, then
// `npm install <tarball>` into an empty folder. The core works with no driver installed,
// none of the optional peer drivers (pg, mysql2, ioredis, etcd3) comes along, and a URL whose
// driver is missing fails with DriverMissingError naming the package. One install.
//
// better-sqlite3 is native. Where its prebuilt binary can be downloaded (GitHub releases),
// a user's install fetches it; here only the npm registry is reachable, so the install would
// compile SQLite from source (minutes on 2 cores). The test hands prebuild-install the binary
// this checkout already built, as a local prebuild under the name it would download; if the
// installed version differs from ours, that name does not match and it compiles as before.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), 'idforge-pack-'));
const app = join(dir, 'app');

/** Runs an ES module in the app folder; resolves its stdout. */
async function inApp(source: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
    cwd: app,
  });
  return stdout.trim();
}

/**
 * Packs this checkout's compiled better-sqlite3 binary as prebuild-install names a download
 * (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`, holding
 * build/Release/better_sqlite3.node) into a folder; resolves the folder.
 */
async function localPrebuild(): Promise<string> {
  const pkg = join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
    version: string;
  };
  const folder = join(dir, 'prebuilds');
  mkdirSync(folder);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', join(folder, name), '-C', pkg, 'build/Release/better_sqlite3.node']);
  return folder;
}

describe('npm install <tarball> in an empty folder', { timeout: 900_000 }, () => {
  before(async () => {
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: root,
      maxBuffer: 16 << 20,
    });
    const tarball = join(dir, packed.stdout.trim().split('\n').at(-1)!);
    const prebuilds = await localPrebuild();
    await run('mkdir', [app]);
    writeFileSync(
      join(app, 'package.json'),
      '{ "name": "app", "private": true, "type": "module" }\n',
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: app,
      maxBuffer: 16 << 20,
      env: { ...process.env, npm_config_better_sqlite3_local_prebuilds: prebuilds },
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the core imports and works without any driver', async () => {
    const out = await inApp("import { uuidv7 } from 'idforge'; process.stdout.write(uuidv7());");
    assert.match(out, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('idforge/public works from the installed package (its one dependency, @noble/ciphers, came along)', async () => {
    const out = await inApp(`
      import { generatePublicKey, PublicIds, typeid, typeIdToUuid } from 'idforge/public';
      const ids = new PublicIds({ keys: [generatePublicKey(1)] });
      const pid = ids.encode(42n, 'inv');
      const t = typeid('user');
      process.stdout.write(JSON.stringify([String(ids.decode(pid, 'inv')), t.slice(0, 5), typeIdToUuid(t).length]));`);
    assert.deepEqual(JSON.parse(out), ['42', 'user_', 36]);
  });

  test('idforge/hlc and idforge/shard work from the installed package', async () => {
    const out = await inApp(`
      import { formatHlc, HlcIdGenerator, hlcOfId } from 'idforge/hlc';
      import { shardKey } from 'idforge/shard';
      const a = new HlcIdGenerator({ node: 1 });
      const b = new HlcIdGenerator({ node: 2 });
      const id = a.next();
      b.receive(a.last);
      process.stdout.write(JSON.stringify([
        b.next() > id, formatHlc(hlcOfId(id)).length, shardKey(42n, { buckets: 16 }) < 16,
      ]));`);
    assert.deepEqual(JSON.parse(out), [true, 17, true]);
  });

  test('none of the optional peer drivers was installed; better-sqlite3 was', () => {
    for (const driver of ['pg', 'mysql2', 'ioredis', 'etcd3', 'classic-level']) {
      assert.equal(existsSync(join(app, 'node_modules', driver)), false, `${driver} installed`);
    }
    assert.ok(existsSync(join(app, 'node_modules', 'better-sqlite3')));
  });

  test('a postgres:// URL fails with DriverMissingError naming pg', async () => {
    const out = await inApp(`
      import { DriverMissingError } from 'idforge';
      import { openLeaseStore } from '@idforge/stores';
      try {
        await openLeaseStore('postgres://idforge@127.0.0.1:5432/test');
        process.stdout.write('opened');
      } catch (e) {
        process.stdout.write(JSON.stringify({
          isClass: e instanceof DriverMissingError, code: e.code, driver: e.driver,
          backend: e.backend, message: e.message,
        }));
      }`);
    const e = JSON.parse(out) as Record<string, unknown>;
    assert.equal(e.isClass, true);
    assert.equal(e.code, 'IDF_DRIVER_MISSING');
    assert.equal(e.driver, 'pg');
    assert.equal(e.backend, 'postgres');
    assert.match(String(e.message), /npm install pg/);
  });

  test('sqlite: (the embedded default) works from the installed package', async () => {
    const out = await inApp(`
      import { openLeaseStore } from '@idforge/stores';
      const store = await openLeaseStore('sqlite:${join(dir, 'pack.db')}');
      process.stdout.write(JSON.stringify(await store.list()));
      await store.close();`);
    assert.equal(out, '[]');
  });

  test('the installed bin serves: idforge serve answers IDs, the dashboard and the client works', async () => {
    const bin = join(app, 'node_modules', '.bin', 'idforge');
    const child = spawn(
      bin,
      ['serve', '--port', '0', '--store', `sqlite:${join(dir, 'serve.db')}`],
      {
        cwd: app,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          buf += chunk;
          const m = /"msg":"listening on (http:[^"]+)"/.exec(buf);
          if (m !== null) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`idforge serve exited (${code}): ${buf}`)));
      });
      const ids = (await (await fetch(`${url}/v1/ids/snowflake?count=3`)).json()) as {
        ids: string[];
      };
      assert.equal(ids.ids.length, 3);
      const page = await fetch(`${url}/`);
      assert.equal(page.status, 200, 'the dashboard page is in the package');
      assert.match(await page.text(), /<html/i);
      assert.equal((await fetch(`${url}/dashboard/app.js`)).status, 200);
      const out = await inApp(`
        import { createClient } from 'idforge/client';
        const c = createClient({ urls: ['${url}'] });
        process.stdout.write(String((await c.batch('ulid', 2)).length));
        c.close();`);
      assert.equal(out, '2');
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, 'SIGTERM: a clean exit');
    }
  });

  test('the installed bin measures: bench db on sqlite:, and leveldb: names its missing driver', async () => {
    const bin = join(app, 'node_modules', '.bin', 'idforge');
    const out = join(dir, 'bench-report');
    const ran = await run(
      bin,
      [
        'bench',
        'db',
        '--store',
        `sqlite:${join(dir, 'bench.db')}`,
        '--rows',
        '500',
        '--schemes',
        'bigint,uuidv4',
        '--out',
        out,
      ],
      { cwd: app },
    );
    assert.match(ran.stdout, /^uuidv4 +BLOB PRIMARY KEY /m);
    assert.ok(existsSync(join(out, 'sizes.svg')), 'the charts are written');
    const level = await run(
      bin,
      ['bench', 'db', '--store', `leveldb:${join(dir, 'level')}`, '--rows', '5'],
      {
        cwd: app,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(level.code, 1);
    assert.match(level.stderr, /npm install classic-level.*\[IDF_DRIVER_MISSING\]/);
  });

  test('the package ships its LICENSE and no source map (the sources they would point at are not shipped)', async () => {
    const installed = join(app, 'node_modules', 'idforge');
    assert.match(readFileSync(join(installed, 'LICENSE'), 'utf8'), /^MIT License/);
    const { stdout: maps } = await run('find', [installed, '-name', '*.map']);
    assert.equal(maps.trim(), '', 'no .map file in the installed package');
  });

  test('size of the install (for the record)', async (t) => {
    const { stdout: size } = await run('du', ['-sh', 'node_modules'], { cwd: app });
    // Every installed package once (the app itself is the first line).
    const { stdout: list } = await run('npm', ['ls', '--all', '--parseable'], { cwd: app });
    const packages = new Set(list.trim().split('\n')).size - 1;
    t.diagnostic(`node_modules ${size.split('\t')[0]}, ${packages} packages`);
  });
});
