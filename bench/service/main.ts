/**
 * Service benchmark: `npm run bench:service` (`-- --quick` for a smoke run, `-- --duration S`).
 *
 * autocannon drives, in one run and on the same machine:
 *   1. a bare `node:http` server answering a constant (the ceiling of any Node.js HTTP server),
 *      a bare Fastify route answering it (the framework's own share), and Fastify with the
 *      parts the service runs per request but no idforge code (floor.mjs: the stack's floor);
 *   2. `idforge serve` as deployed: a scoped bearer token on every request, the rate limit and
 *      the event-loop guard on, metrics counted: /v1/ids/snowflake?count=1, ?count=1000,
 *      /v1/ids/uuidv7?count=1000 and Leaf's /api/snowflake/get/{key} and /api/segment/get/{key};
 * then the client's `sequence(tag).next()` with prefetched segments against the same service,
 * and the lease rows (leases.ts): a node in this process leased through the service
 * (`httpLeaseStore`, a `lease` token) against one leased on the store itself (both expected at
 * the layout's cap: the lease is off the issue path), and one lease renewal's round trip, over
 * HTTP and on the store; last, count=1 against `idforge serve --processes 2` (and `auto`
 * when that is not 2 here), to show what more processes give on this host.
 * The rows compared with each other (the bare server and Fastify's, the floor, count=1, Leaf's
 * two routes, count=1 with V8's concurrent marking left on) run interleaved (interleave.ts).
 * Each server is its own process (one core for it, one for autocannon). Goals (issue 10,
 * raised by issue 35 for count=1): count=1 with token, metrics and rate limit at 85 % of the
 * bare server's requests/s, the Leaf routes at 80 %; Snowflake count=1000 at 90 % of one
 * worker's cap (4,096 IDs/ms = 4.1 M/s); UUIDv7 count=1000 over 5 M IDs/s; the client over
 * 10 M sequence numbers/s. Printed with p50/p99/p999 latency, the cores autocannon itself
 * used during each row (it runs in this process), the machine's cores and load average, and
 * the ratios, and the CPU time the server's processes spent per request (from /proc), which
 * says what a request costs the server whether it or autocannon set the rate.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, httpLeaseStore } from '../../packages/idforge/src/client/index.js';
import { openLeaseStore } from '../../packages/stores/src/index.js';
import { interleaved } from './interleave.js';
import { nodeRate, renewRoundTrip } from './leases.js';
import { percentiles, type Row } from './row.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const durationArg = argv.indexOf('--duration');
const DURATION = durationArg >= 0 ? Number(argv[durationArg + 1]) : quick ? 2 : 10;
const CONNECTIONS = 64;
const TOKEN = 'bench-token-0123456789abcdef0123';
const LEASE_TOKEN = 'bench-lease-token-0123456789abcdef';
const CAP = 4_096_000;
const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'scripts/dev-loader.mjs');

function machine(): string {
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return (
    `${cpus().length} cores (available parallelism ${availableParallelism()}) x ` +
    `${cpus()[0]?.model ?? 'unknown CPU'}, Node.js ${process.version}, load average ${load}`
  );
}

/** The newest modification time (ms) of the packages' TypeScript sources. */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const p of ['idforge', 'stores', 'server']) walk(join(root, 'packages', p, 'src'));
  return newest;
}

/** Starts a child and resolves its URL from the first line matching `pattern`. */
function start(args: string[], pattern: RegExp, env: Record<string, string> = {}, cwd?: string) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
    ...(cwd === undefined ? {} : { cwd }),
  });
  const url = new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buf += chunk;
      const m = pattern.exec(buf);
      if (m !== null) resolve(m[1] as string);
    });
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited (${code}) before listening`)),
    );
  });
  return { child, url };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** One target alone: a one-second warm-up, then DURATION seconds (interleave.ts's tally). */
async function load(
  name: string,
  url: string,
  idsPerRequest: number,
  headers: Record<string, string>,
  server: ChildProcess,
): Promise<Row> {
  const [row] = await interleaved(
    [{ name, url, idsPerRequest, headers, server }],
    DURATION,
    1,
    CONNECTIONS,
  );
  return row as Row;
}

/** Sequence numbers per second through the client, most from its prefetched segments. */
async function clientRate(url: string, tag: string): Promise<Row> {
  const client = createClient({ urls: [url], token: TOKEN, segmentSize: 100_000 });
  try {
    const seq = client.sequence(tag);
    await seq.next();
    const latencies: number[] = [];
    let n = 0;
    const started = performance.now();
    const until = started + DURATION * 1000;
    while (performance.now() < until) {
      for (let i = 0; i < 100_000; i++) {
        if (seq.tryNext() === undefined) {
          const t = performance.now();
          await seq.next();
          latencies.push(performance.now() - t);
        }
        n++;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      name: 'client sequence(tag).next(), prefetch',
      reqPerSec: Number.NaN,
      idsPerSec: n / seconds,
      // Latency of the calls that had to wait on the network (the rest cost nanoseconds).
      ...percentiles(latencies),
      loadCores: Number.NaN,
      serverUsPerReq: Number.NaN,
      errors: 0,
      non2xx: 0,
    };
  } finally {
    client.close();
  }
}

const fmt = (n: number) =>
  Number.isNaN(n)
    ? '-'
    : n >= 1e6
      ? `${(n / 1e6).toFixed(2)} M`
      : n >= 1e3
        ? `${(n / 1e3).toFixed(1)} k`
        : n.toFixed(0);

function print(rows: readonly Row[]): void {
  const bare = rows[0] as Row;
  const head = [
    'target',
    'req/s',
    'IDs/s',
    'p50 ms',
    'p99 ms',
    'p999 ms',
    'load gen cores',
    'server µs/req',
    'errors',
    'vs goal',
  ];
  const single = rows.find((r) => r.name.startsWith('snowflake count=1 ')) ?? bare;
  const fastify = rows[1] as Row;
  const floor = rows[2] as Row;
  const of = (r: Row, base: Row) => `${((r.reqPerSec / base.reqPerSec) * 100).toFixed(0)} %`;
  const goal = (r: Row): string => {
    if (r.name.startsWith('bare Fastify') || r.name.startsWith('Fastify +'))
      return `${of(r, bare)} of bare`;
    if (r.name.startsWith('snowflake count=1, --processes'))
      return `${of(r, single)} of --processes 1, ${of(r, bare)} of bare (one bare process)`;
    if (r.name.startsWith('snowflake count=1 '))
      return `${of(r, bare)} of bare (goal 85 %), ${of(r, floor)} of the stack's floor`;
    if (r.name.startsWith('snowflake count=1000'))
      return `${((r.idsPerSec / CAP) * 100).toFixed(0)} % of cap (goal 90 %)`;
    if (r.name.startsWith('uuidv7')) return `${(r.idsPerSec / 5e6).toFixed(2)}x of 5 M/s`;
    if (r.name.startsWith('client')) return `${(r.idsPerSec / 1e7).toFixed(2)}x of 10 M/s`;
    if (r.name.startsWith('node in process'))
      return `${((r.idsPerSec / CAP) * 100).toFixed(0)} % of cap (expected ~100 %)`;
    if (r.name.startsWith('leaf'))
      return `${of(r, bare)} of bare (goal 80 %), ${of(r, fastify)} of bare Fastify`;
    if (r.name.includes('concurrent marking'))
      return `${of(r, bare)} of bare, ${of(r, single)} of serve's default (marking off)`;
    return '';
  };
  const cells = rows.map((r) => [
    r.name,
    fmt(r.reqPerSec),
    fmt(r.idsPerSec),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    Number.isNaN(r.p999) ? '-' : r.p999.toFixed(2),
    Number.isNaN(r.loadCores) ? '-' : r.loadCores.toFixed(2),
    Number.isNaN(r.serverUsPerReq) ? '-' : r.serverUsPerReq.toFixed(1),
    String(r.errors + r.non2xx),
    goal(r),
  ]);
  const widths = head.map((h, i) =>
    Math.max(h.length, ...cells.map((c) => (c[i] as string).length)),
  );
  for (const line of [head, ...cells])
    console.log(
      line
        .map((c, i) => c.padEnd(widths[i] as number))
        .join('  ')
        .trimEnd(),
    );
}

/** A node leased through the service against one on the store, and the lease round trips. */
async function leaseRows(url: string, storeUrl: string): Promise<Row[]> {
  const http = httpLeaseStore({ urls: [url], token: LEASE_TOKEN });
  const direct = await openLeaseStore(storeUrl);
  try {
    return [
      await nodeRate('node in process, leased over HTTP', http, [500, 599], DURATION),
      await nodeRate('node in process, leased on the store', direct, [600, 699], DURATION),
      await renewRoundTrip('lease renewal over HTTP', http, 700, DURATION),
      await renewRoundTrip('lease renewal on the store (sqlite)', direct, 701, DURATION),
    ];
  } finally {
    await http.close();
    await direct.close();
  }
}

/** The service's command line: the build when it is as new as the sources, else the sources through the loader. */
function serviceCli(): string[] {
  // The built CLI when there is one as new as the sources (as deployed); else the sources
  // through the loader: a build older than the sources would measure code that is not there any more.
  const built = join(root, 'packages/server/dist/bin/idforge-server.js');
  const fresh = existsSync(built) && statSync(built).mtimeMs >= newestSource();
  console.log(
    `service: ${fresh ? 'packages/server/dist (npm run build)' : `the sources via scripts/dev-loader.mjs${existsSync(built) ? ' (packages/server/dist is older than the sources: npm run build)' : ''}`}`,
  );
  return fresh
    ? [built]
    : ['--import', loader, join(root, 'packages/server/src/bin/idforge-server.ts')];
}

/** The bench's files: the bare server's script and the service's config (SQLite in `dir`). */
function writeFiles(dir: string) {
  const bare = join(dir, 'bare.mjs');
  writeFileSync(
    bare,
    `import { createServer } from 'node:http';
const s = createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ids":["1"]}'); });
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`,
  );
  const config = join(dir, 'idforge.json');
  writeFileSync(
    config,
    JSON.stringify({
      store: `sqlite:${join(dir, 'idforge.db')}`,
      port: 0,
      logLevel: 'warn',
      rateLimit: 1_000_000_000,
      rateWindowMs: 60_000,
      tokens: [
        { name: 'bench', token: TOKEN, admin: true },
        { name: 'bench-lease', token: LEASE_TOKEN, scopes: ['lease'] },
      ],
    }),
  );
  return { bare, config };
}

type Started = ReturnType<typeof start>;
const LISTENING = /"msg":"listening on (http:\/\/[^"]+)"/;
const AUTH = { authorization: `Bearer ${TOKEN}` };

/**
 * The rows that are compared with each other, interleaved (interleave.ts): the bare server,
 * the bare Fastify route and the stack's floor, then the service's count=1 and Leaf's two
 * routes, count=1 on a second service left with V8's concurrent marking (Node's default,
 * which `serve` turns off: packages/idforge/src/bin/main.ts), and count=1 on `--processes 2`
 * (and `auto` when that is not 2 here), each a node of its own on the same store.
 */
async function ratioRows(
  bare: Started,
  floors: Started[],
  svc: Started,
  gc: Started,
  multi: readonly (Started & { label: string })[],
) {
  const [bareUrl, fastify, floor, service, marking] = await Promise.all(
    [bare, ...floors, svc, gc].map((s) => s.url),
  );
  const multiUrls = await Promise.all(multi.map((m) => m.url));
  const t = (
    name: string,
    url: string,
    server: Started,
    headers: Record<string, string> = AUTH,
  ) => ({
    name,
    url,
    idsPerRequest: 1,
    headers,
    server: server.child,
  });
  return interleaved(
    [
      t('bare node:http constant', bareUrl as string, bare, {}),
      t('bare Fastify route, constant', `${fastify}/?count=1`, floors[0] as Started),
      t('Fastify + deployed parts, constant', `${floor}/?count=1`, floors[1] as Started),
      t('snowflake count=1 (auth, metrics, limits)', `${service}/v1/ids/snowflake?count=1`, svc),
      t('leaf /api/snowflake/get/{key}', `${service}/api/snowflake/get/bench`, svc),
      t('leaf /api/segment/get/{key}', `${service}/api/segment/get/bench`, svc),
      t('count=1, V8 concurrent marking on', `${marking}/v1/ids/snowflake?count=1`, gc),
      ...multi.map((m, i) =>
        t(
          `snowflake count=1, --processes ${m.label}`,
          `${multiUrls[i]}/v1/ids/snowflake?count=1`,
          m,
        ),
      ),
    ],
    DURATION,
    quick ? 2 : DURATION,
    CONNECTIONS,
  );
}

/** Creates the tag `bench` (Leaf's segment route and the client use it). */
async function createTag(url: string): Promise<void> {
  const created = await fetch(`${url}/v1/sequences/bench`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ step: 100_000 }),
  });
  if (created.status !== 201)
    throw new Error(`creating the tag: ${created.status} ${await created.text()}`);
}

/** Every row but the --processes ones: the interleaved group, then the service's own. */
async function serviceRows(cli: string[], dir: string, files: { bare: string; config: string }) {
  const serve = (node: string[] = []) =>
    start(
      [...node, ...cli, 'serve', '--config', files.config, '--log-level', 'info'],
      LISTENING,
      {},
      dir,
    );
  const service = serve();
  const marking = serve(['--concurrent-marking']);
  const multi = (availableParallelism() === 2 ? ['2'] : ['2', 'auto']).map((n) => ({
    label: n === 'auto' ? `auto = ${availableParallelism()}` : n,
    ...start(
      [...cli, 'serve', '--config', files.config, '--log-level', 'info', '--processes', n],
      /"msg":"\d+ processes listening on (http:\/\/[^"]+)"/,
      {},
      dir,
    ),
  }));
  const bare = start([files.bare], /listening on (http:\/\/\S+)/);
  const floor = join(root, 'bench/service/floor.mjs');
  const floors = [['--bare'], ['--token', TOKEN]].map((a) =>
    start([floor, ...a], /listening on (http:\/\/\S+)/),
  );
  const started = [service, bare, marking, ...floors, ...multi];
  try {
    const url = await service.url;
    await createTag(url);
    const rows = await ratioRows(bare, floors, service, marking, multi);
    await Promise.all(started.filter((s) => s !== service).map((s) => stop(s.child)));
    const ids = (name: string, path: string, n: number) =>
      load(name, `${url}${path}`, n, AUTH, service.child);
    rows.push(await ids('snowflake count=1000', '/v1/ids/snowflake?count=1000', 1000));
    rows.push(await ids('uuidv7 count=1000', '/v1/ids/uuidv7?count=1000', 1000));
    rows.push(await clientRate(url, 'bench'));
    rows.push(...(await leaseRows(url, `sqlite:${join(dir, 'idforge.db')}`)));
    return rows;
  } finally {
    await Promise.all(started.map((s) => stop(s.child)));
  }
}

async function main(): Promise<void> {
  console.log(
    `idforge service benchmark: ${machine()}; ${DURATION} s per target, ${CONNECTIONS} connections`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'idforge-bench-'));
  const files = writeFiles(dir);
  const cli = serviceCli();
  try {
    const rows = await serviceRows(cli, dir, files);
    print(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    'The rows from the bare server to --processes ran interleaved (each a slice of every ' +
      "round, the order rotating), so their ratios share the machine's drift; the others ran " +
      'one after another.',
  );
  console.log(
    `--processes: one process per core; on this ${cpus().length}-core host the load generator ` +
      '(autocannon, in this process) takes the share of a core its column states, so processes ' +
      'beyond the cores left to them compete with it: read a 2-core run as a floor, not as scaling',
  );
}

await main();
