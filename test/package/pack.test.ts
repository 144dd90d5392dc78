// The published packages as users install them: `npm pack` of every workspace package, then
// the tarballs installed into empty folders with the ordinary npm client (--engine-strict,
// --prefer-offline). One pack, two installs:
//   A  `idforge` alone: two packages, no native code, no install script; the core, its entry
//      points and its bin work, and the bin's server commands name the package to install;
//      its declarations compile without Node's types.
//   B  idforge, @idforge/stores and @idforge/server in one install: `npx @idforge/server`
//      serves (IDs, the dashboard, the client), so does `idforge serve`; no optional driver came
//      along and a URL whose driver is missing names it; bench db runs; every entry point of
//      every package compiles under tsc --strict with skipLibCheck false (nodenext, bundler).
// Sizes, package counts and install times are printed as diagnostics.
//
// dist/ is what is packed: when it is missing or older than a source file, the test builds
// first (`npm run build`, as CI's install already did).
//
// better-sqlite3 is native. Where its prebuilt binary can be downloaded (GitHub releases),
// a user's install fetches it; here only the npm registry is reachable, so the install would
// compile SQLite from source (minutes on 2 cores). The test hands prebuild-install the binary
// this checkout already built, as a local prebuild under the name it would download; if the
// installed version differs from ours, that name does not match and it compiles as before.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import {
  alive,
  distIsStale,
  entryPoints,
  exec,
  filesUnder,
  installedPackages,
  localPrebuild,
  missingFromPack,
  mustRun,
  type Server,
  startServer,
} from './helpers.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const { dir, remove: removeDir } = tempDir('idforge-pack-');
/** Folder A: `npm install idforge.tgz` alone. */
const lib = join(dir, 'lib');
/** Folder B: the three tarballs in one install. */
const app = join(dir, 'app');
const PACKAGES = ['idforge', '@idforge/stores', '@idforge/server'] as const;
const DRIVERS = ['pg', 'mysql2', 'ioredis', 'etcd3', 'classic-level'];
const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INSTALL = ['install', '--engine-strict', '--no-audit', '--no-fund', '--prefer-offline'];

interface Packed {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

let packed: Packed[] = [];
let libTree = new Map<string, string[]>();
let appTree = new Map<string, string[]>();
let prebuildEnv: NodeJS.ProcessEnv = process.env;
/** Diagnostics gathered while setting up, printed by the last test. */
const record: string[] = [];

const tarball = (name: string) => join(dir, packed.find((p) => p.name === name)!.filename);
const tsc = (cwd: string, args: readonly string[]) =>
  exec(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), ...args], { cwd });

/** Runs an ES module in `cwd`; resolves its stdout, trimmed. */
async function node(cwd: string, source: string): Promise<string> {
  const ran = await mustRun(process.execPath, ['--input-type=module', '-e', source], { cwd });
  return ran.stdout.trim();
}

/** An empty app folder, then one `npm install` of `specs`; records size, count and time. */
async function install(
  label: string,
  folder: string,
  specs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Map<string, string[]>> {
  mkdirSync(folder);
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: label, private: true, type: 'module' })}\n`,
  );
  // A build from source (no prebuild matched) takes minutes: a generous bound.
  const ran = await mustRun('npm', [...INSTALL, ...specs], {
    cwd: folder,
    env,
    timeoutMs: 600_000,
  });
  const tree = await installedPackages(folder);
  const { stdout: du } = await mustRun('du', ['-sh', 'node_modules'], { cwd: folder });
  const count = [...tree.values()].reduce((n, paths) => n + paths.length, 0);
  record.push(
    `${label}: node_modules ${du.split('\t')[0]}, ${count} packages, ` +
      `npm install ${(ran.ms / 1000).toFixed(1)} s (warm cache, --prefer-offline)`,
  );
  return tree;
}

describe('npm pack of every workspace package, installed into empty folders', {
  timeout: 900_000,
  concurrency: true,
}, () => {
  before(async () => {
    const stale = ['idforge', 'stores', 'server'].filter((p) =>
      distIsStale(join(root, 'packages', p)),
    );
    if (stale.length > 0) {
      const built = await mustRun('npm', ['run', 'build'], { cwd: root });
      record.push(
        `dist older than src (${stale.join(', ')}): npm run build, ${(built.ms / 1000).toFixed(1)} s`,
      );
    }
    prebuildEnv = await localPrebuild(root, join(dir, 'prebuilds'));
    const pack = async () => {
      const ran = await mustRun(
        'npm',
        ['pack', '--workspaces', '--json', '--pack-destination', dir],
        { cwd: root },
      );
      packed = JSON.parse(ran.stdout) as Packed[];
      assert.deepEqual(packed.map((p) => p.name).sort(), [...PACKAGES].sort(), 'one tarball each');
      record.push(`npm pack --workspaces: ${(ran.ms / 1000).toFixed(1)} s`);
      return packed.flatMap(({ name, files }) =>
        missingFromPack(
          join(root, 'packages', name.replace('@idforge/', '')),
          files.map((f) => f.path),
        ).map((f) => `${name}: ${f}`),
      );
    };
    // Others may rebuild dist/ (emptied first) in this working tree while it is packed: a
    // tarball lacking a file its package.json names is packed again once, after a build.
    let missing = await pack();
    if (missing.length > 0) {
      record.push(`packed while incomplete (${missing.join(', ')}): built and packed again`);
      await mustRun('npm', ['run', 'build'], { cwd: root });
      missing = await pack();
    }
    assert.deepEqual(missing, [], 'every file a package.json names is in its tarball');

    // One after the other, so that each install time is its own.
    libTree = await install('lib', lib, [tarball('idforge')]);
    appTree = await install('app', app, PACKAGES.map(tarball), prebuildEnv);
    // The compiler for part C, after the app's tree was counted (not part of what users get).
    const { version } = JSON.parse(
      readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8'),
    ) as { version: string };
    const ts = await mustRun(
      'npm',
      [...INSTALL, '--no-save', `typescript@${version}`, '@types/node@20'],
      { cwd: app, env: prebuildEnv },
    );
    record.push(
      `app: + typescript@${version} @types/node@20 (--no-save), ${(ts.ms / 1000).toFixed(1)} s`,
    );
  });
  after(removeDir);

  // --- A: idforge alone -----------------------------------------------------------------------

  test('A: idforge alone is 2 packages (idforge, @noble/ciphers), no .node file, no install script', () => {
    const names = [...libTree.keys()].sort();
    assert.ok(names.includes('idforge'), `idforge installed: ${names.join(', ')}`);
    assert.ok(
      names.every((n) => n === 'idforge' || n === '@noble/ciphers') &&
        [...libTree.values()].flat().length <= 2,
      `only idforge and @noble/ciphers: ${names.join(', ')}`,
    );
    const native = filesUnder(join(lib, 'node_modules')).filter((f) => f.endsWith('.node'));
    assert.deepEqual(native, [], 'no native binary');
    for (const path of [...libTree.values()].flat()) {
      const { name, scripts = {} } = JSON.parse(
        readFileSync(join(path, 'package.json'), 'utf8'),
      ) as {
        name: string;
        scripts?: Record<string, string>;
      };
      for (const hook of ['preinstall', 'install', 'postinstall']) {
        assert.equal(scripts[hook], undefined, `${name} declares a ${hook} script`);
      }
      assert.equal(existsSync(join(path, 'binding.gyp')), false, `${name} has a binding.gyp`);
    }
  });

  test('A: uuidv7, ulid, Snowflake, idforge/public, /hlc, /shard work; every entry point loads alone', async () => {
    const out = await node(
      lib,
      `
      import { readFileSync } from 'node:fs';
      import { getLayout, isUlid, SnowflakeGenerator, snowflakeTimestamp, ulid, uuidv7 } from 'idforge';
      import { fieldOf } from 'idforge/snowflake';
      import { generatePublicKey, PublicIds, typeid, typeIdToUuid } from 'idforge/public';
      import { formatHlc, HlcIdGenerator, hlcOfId } from 'idforge/hlc';
      import { shardKey } from 'idforge/shard';
      const sf = new SnowflakeGenerator({ node: 7 });
      const [s1, s2] = [sf.next(), sf.next()];
      const ids = new PublicIds({ keys: [generatePublicKey(1)] });
      const t = typeid('user');
      const a = new HlcIdGenerator({ node: 1 });
      const b = new HlcIdGenerator({ node: 2 });
      const h = a.next();
      b.receive(a.last);
      const { exports } = JSON.parse(readFileSync('node_modules/idforge/package.json', 'utf8'));
      const loaded = [];
      for (const sub of Object.keys(exports).filter((s) => s !== './package.json')) {
        loaded.push([sub, Object.keys(await import('idforge' + sub.slice(1))).length > 0]);
      }
      process.stdout.write(JSON.stringify({
        uuidv7: uuidv7(), ulid: isUlid(ulid()),
        snowflake: [typeof s1, s2 > s1, fieldOf(getLayout('default'), s1, 'node'),
          Math.abs(snowflakeTimestamp(getLayout('default'), s1) - Date.now()) < 60000],
        public: [String(ids.decode(ids.encode(42n, 'inv'), 'inv')), t.slice(0, 5), typeIdToUuid(t).length],
        hlc: [b.next() > h, formatHlc(hlcOfId(h)).length],
        shard: shardKey(42n, { buckets: 16 }) < 16,
        loaded,
      }));`,
    );
    const r = JSON.parse(out) as Record<string, unknown> & { loaded: [string, boolean][] };
    assert.match(String(r.uuidv7), UUIDV7);
    assert.equal(r.ulid, true);
    assert.deepEqual(r.snowflake, ['bigint', true, 7, true]);
    assert.deepEqual(r.public, ['42', 'user_', 36]);
    assert.deepEqual(r.hlc, [true, 17]);
    assert.equal(r.shard, true);
    assert.ok(r.loaded.length >= 10, `entry points: ${JSON.stringify(r.loaded)}`);
    for (const [sub, ok] of r.loaded) assert.ok(ok, `idforge${sub.slice(1)} exports nothing`);
  });

  test('A: the bin generates, and serve / gen --store name the package to install (exit 2)', async () => {
    const bin = join(lib, 'node_modules/.bin/idforge');
    const opts = { cwd: lib, timeoutMs: 30_000 };
    const [gen, serve, store] = await Promise.all([
      exec(bin, ['gen', 'uuidv7'], opts),
      exec(bin, ['serve'], opts),
      exec(bin, ['gen', 'snowflake', '--store', 'sqlite:x.db'], opts),
    ]);
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stdout.trim(), UUIDV7);
    for (const [ran, pkg] of [
      [serve, '@idforge/server'],
      [store, '@idforge/stores'],
    ] as const) {
      assert.equal(ran.code, 2, `exit 2: ${ran.stdout}${ran.stderr}`);
      assert.equal(ran.stdout, '');
      assert.match(ran.stderr, new RegExp(`^[^\\n]*npm install ${pkg}[^\\n]*\\n?$`), 'one line');
    }
    assert.equal(existsSync(join(lib, 'x.db')), false, 'the refused gen --store created no store');
    assert.equal(existsSync(join(lib, 'idforge.db')), false, 'the refused serve created no store');
  });

  test("A: the core's declarations compile without Node's types (types: [], lib es2022 + dom)", async () => {
    // The root and its per-scheme and wire entry points (views of the core, browser-safe).
    const views = ['uuid', 'ulid', 'ksuid', 'snowflake', 'wire'];
    writeFileSync(
      join(lib, 'core.ts'),
      [
        "import * as core from 'idforge';",
        ...views.map((v) => `import * as ${v} from 'idforge/${v}';`),
        `export const used = [core, ${views.join(', ')}];`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(lib, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          skipLibCheck: false,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['core.ts'],
      }),
    );
    assert.equal(existsSync(join(lib, 'node_modules/@types')), false, 'no @types in folder A');
    const ran = await tsc(lib, ['-p', 'tsconfig.json']);
    assert.equal(ran.code, 0, `tsc in folder A:\n${ran.stdout}${ran.stderr}`);
  });

  test('every tarball ships package.json, README.md, LICENSE and dist/ only, no source map', () => {
    for (const { name, files } of packed) {
      const paths = files.map((f) => f.path);
      for (const f of ['package.json', 'README.md', 'LICENSE']) {
        assert.ok(paths.includes(f), `${name} ships ${f}`);
      }
      const other = paths.filter(
        (p) => !['package.json', 'README.md', 'LICENSE'].includes(p) && !p.startsWith('dist/'),
      );
      assert.deepEqual(other, [], `${name}: files outside dist/`);
      assert.deepEqual(
        paths.filter((p) => p.endsWith('.map')),
        [],
        `${name}: source maps`,
      );
      assert.deepEqual(
        paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts')),
        [],
        `${name}: TypeScript sources`,
      );
    }
    for (const installed of [
      join(lib, 'node_modules/idforge'),
      ...PACKAGES.map((n) => join(app, 'node_modules', n)),
    ]) {
      assert.match(readFileSync(join(installed, 'LICENSE'), 'utf8'), /^MIT License/, installed);
      assert.match(readFileSync(join(installed, 'README.md'), 'utf8'), /^# (@idforge\/)?\w+/);
      assert.deepEqual(
        filesUnder(installed).filter((f) => f.endsWith('.map')),
        [],
        `${installed}: no .map file`,
      );
      for (const { specifier, files } of entryPoints(installed)) {
        for (const f of files) assert.ok(existsSync(join(installed, f)), `${specifier}: ${f}`);
      }
    }
  });

  // --- B: the three packages ------------------------------------------------------------------

  test('B: one install of the three tarballs; no optional driver; better-sqlite3 built', () => {
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    for (const name of PACKAGES) {
      assert.deepEqual(appTree.get(name), [join(app, 'node_modules', name)], `${name} once`);
      assert.match(String(lock.packages[`node_modules/${name}`]?.resolved), /^file:.*\.tgz$/);
    }
    for (const driver of DRIVERS) assert.equal(appTree.has(driver), false, `${driver} installed`);
    assert.ok(
      existsSync(join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')),
      'better-sqlite3 has its binding',
    );
  });

  test('B: npx @idforge/server serves IDs, the dashboard and the client (from A and B); SIGTERM to npx stops it', async () => {
    let server: Server | undefined;
    const store = `sqlite:${join(dir, 'serve.db')}`;
    try {
      server = await startServer(
        'npx',
        ['@idforge/server', '--port', '0', '--store', store],
        // npx must run the installed package: should it not find it, it refuses rather than
        // fetch one from the registry.
        { cwd: app, env: { ...process.env, npm_config_yes: 'false' } },
      );
      const url = server.url;
      const res = await fetch(`${url}/v1/ids/uuidv7?count=2`);
      assert.equal(res.status, 200);
      const { ids } = (await res.json()) as { ids: string[] };
      assert.equal(ids.length, 2);
      for (const id of ids) assert.match(id, UUIDV7);
      const page = await fetch(`${url}/`);
      assert.equal(page.status, 200, 'the dashboard page is in the package');
      assert.match(await page.text(), /<html/i);
      const script = await fetch(`${url}/dashboard/app.js`);
      assert.equal(script.status, 200);
      await script.arrayBuffer();
      const client = (scheme: string) => `
        import { createClient } from 'idforge/client';
        const c = createClient({ urls: ['${url}'] });
        try { process.stdout.write(JSON.stringify(await c.batch('${scheme}', 3))); } finally { c.close(); }`;
      const [fromLib, fromApp] = await Promise.all([
        node(lib, client('uuidv7')),
        node(app, client('ulid')),
      ]);
      const v7 = JSON.parse(fromLib) as string[];
      assert.equal(v7.length, 3);
      for (const id of v7) assert.match(id, UUIDV7);
      assert.equal((JSON.parse(fromApp) as string[]).length, 3);
      // What a supervisor (systemd, a container runtime, a process manager) does: SIGTERM to
      // the process it started, npx. npm passes it to the shell it runs the bin under, which
      // ends without passing it on: node, orphaned, must notice and drain by itself.
      await server.stop('child');
      const { pid } = server;
      await waitFor(() => !alive(pid), `the server (pid ${pid}) to end after npx's SIGTERM`);
      const out = server.output();
      assert.match(out, /parent process \(npm\) exited: shutting down/, out);
      assert.match(out, /stopped: marks recorded, leases released/, out);
      await assert.rejects(fetch(`${url}/healthz`), 'nothing listens on its port any more');
      const leases = await node(
        app,
        `import { openLeaseStore } from '@idforge/stores';
        const store = await openLeaseStore('${store}');
        try { process.stdout.write(JSON.stringify(await store.list())); } finally { await store.close(); }`,
      );
      assert.equal(leases, '[]', 'no lease left held');
    } finally {
      server?.kill();
    }
  });

  test("B: the library's bin serves once the server is installed (idforge serve); SIGTERM exits 0", async () => {
    let server: Server | undefined;
    try {
      server = await startServer(
        join(app, 'node_modules/.bin/idforge'),
        ['serve', '--port', '0', '--store', `sqlite:${join(dir, 'bin-serve.db')}`],
        { cwd: app },
      );
      const res = await fetch(`${server.url}/v1/ids/uuidv7?count=2`);
      assert.equal(res.status, 200);
      const { ids } = (await res.json()) as { ids: string[] };
      assert.equal(ids.length, 2);
      for (const id of ids) assert.match(id, UUIDV7);
      assert.equal(await server.stop(), 0, `SIGTERM: a clean exit\n${server.output()}`);
    } finally {
      server?.kill();
    }
  });

  test('B: @idforge/stores: postgres:// is DriverMissingError naming pg; sqlite: works', async () => {
    const [pg, sqlite] = await Promise.all([
      node(
        app,
        `
        import { DriverMissingError } from '@idforge/stores';
        import { openLeaseStore } from '@idforge/stores';
        try {
          await openLeaseStore('postgres://idforge@127.0.0.1:5432/test');
          process.stdout.write('opened');
        } catch (e) {
          process.stdout.write(JSON.stringify({
            isClass: e instanceof DriverMissingError, code: e.code, driver: e.driver,
            backend: e.backend, message: e.message,
          }));
        }`,
      ),
      node(
        app,
        `
        import { openLeaseStore } from '@idforge/stores';
        const store = await openLeaseStore('sqlite:${join(dir, 'stores.db')}');
        try { process.stdout.write(JSON.stringify(await store.list())); } finally { await store.close(); }`,
      ),
    ]);
    const e = JSON.parse(pg) as Record<string, unknown>;
    assert.equal(e.isClass, true, pg);
    assert.equal(e.code, 'IDF_DRIVER_MISSING');
    assert.equal(e.driver, 'pg');
    assert.equal(e.backend, 'postgres');
    assert.match(String(e.message), /npm install pg/);
    assert.equal(sqlite, '[]');
  });

  test('B: idforge-server bench db on sqlite:, and leveldb: names its missing driver', async () => {
    const bin = join(app, 'node_modules/.bin/idforge-server');
    const out = join(dir, 'bench-report');
    const [bench, level] = await Promise.all([
      exec(
        bin,
        [
          ...['bench', 'db', '--store', `sqlite:${join(dir, 'bench.db')}`, '--rows', '500'],
          ...['--schemes', 'bigint,uuidv4', '--out', out],
        ],
        { cwd: app },
      ),
      exec(bin, ['bench', 'db', '--store', `leveldb:${join(dir, 'level')}`, '--rows', '5'], {
        cwd: app,
      }),
    ]);
    assert.equal(bench.code, 0, bench.stderr);
    assert.match(bench.stdout, /^uuidv4 +BLOB PRIMARY KEY /m);
    assert.ok(existsSync(join(out, 'sizes.svg')), 'the charts are written');
    assert.equal(level.code, 1, `${level.stdout}${level.stderr}`);
    assert.match(level.stderr, /npm install classic-level.*\[IDF_DRIVER_MISSING\]/);
  });

  // --- C: TypeScript --------------------------------------------------------------------------

  test('C: every entry point of every package compiles (strict, skipLibCheck false; nodenext and bundler)', async (t) => {
    const specifiers = PACKAGES.flatMap((n) =>
      entryPoints(join(app, 'node_modules', n)).map((e) => e.specifier),
    );
    writeFileSync(
      join(app, 'entries.ts'),
      `${specifiers.map((s, i) => `import * as e${i} from '${s}';`).join('\n')}\n` +
        `export const entries: readonly object[] = [${specifiers.map((_, i) => `e${i}`).join(', ')}];\n`,
    );
    const common = ['--noEmit', '--strict', '--skipLibCheck', 'false', '--target', 'es2022'];
    const modes = {
      nodenext: ['--module', 'nodenext', '--moduleResolution', 'nodenext'],
      bundler: ['--module', 'esnext', '--moduleResolution', 'bundler'],
    };
    const runs = await Promise.all(
      Object.entries(modes).map(async ([mode, flags]) => ({
        mode,
        ran: await tsc(app, [...common, ...flags, 'entries.ts']),
      })),
    );
    t.diagnostic(`${specifiers.length} entry points: ${specifiers.join(' ')}`);
    for (const { mode, ran } of runs) t.diagnostic(`tsc ${mode}: ${(ran.ms / 1000).toFixed(1)} s`);
    for (const { mode, ran } of runs) {
      assert.equal(ran.code, 0, `tsc --module ${mode}:\n${ran.stdout}${ran.stderr}`);
    }
  });

  test('sizes, package counts and install times (for the record)', (t) => {
    for (const line of record) t.diagnostic(line);
    const all = record.join('\n');
    assert.match(all, /^npm pack --workspaces: \d+\.\d s$/m);
    const recorded = (label: string, tree: Map<string, string[]>) => {
      const m = new RegExp(
        `^${label}: node_modules (\\d+(?:[.,]\\d+)?)([KMGT]?), (\\d+) packages, npm install (\\d+\\.\\d) s `,
        'm',
      ).exec(all);
      assert.ok(m, `${label}: no size, package count and install time recorded:\n${all}`);
      const count = [...tree.values()].reduce((n, paths) => n + paths.length, 0);
      assert.equal(Number(m[3]), count, `${label}: the count recorded is the installed tree's`);
      const bytes = Number(m[1]!.replace(',', '.')) * 1024 ** ' KMGT'.indexOf(m[2] || ' ');
      return { bytes, count };
    };
    const alone = recorded('lib', libTree);
    const all3 = recorded('app', appTree);
    // The library alone is a part of the three packages' install: fewer packages, fewer bytes.
    assert.ok(alone.count >= 1 && alone.count < all3.count, `${alone.count} vs ${all3.count}`);
    assert.ok(alone.bytes > 0 && alone.bytes < all3.bytes, `${alone.bytes} vs ${all3.bytes}`);
  });
});
