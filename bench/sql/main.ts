/**
 * In-database insert costs: `npm run bench:sql` (`-- --rows N --clients C --rounds R`,
 * `--quick` for a smoke run). For each reachable engine, one run side by side: single-row
 * INSERTs with the key from idforge's SQL functions (`idforge sql`) against the engine's own
 * random UUID and its counter:
 *
 *   PostgreSQL  DEFAULT idforge_uuidv7() / gen_random_uuid() / bigint identity / idforge_snowflake()
 *   MariaDB     VALUES (idforge_uuidv7(), …) / UUID() / AUTO_INCREMENT / idforge_snowflake()
 *   SQLite      VALUES (idforge_uuidv7(), …) / randomblob(16) / rowid / idforge_snowflake()
 *
 * pgbench-style: C connections insert at once, each row its own autocommit transaction on the
 * servers (SQLite: one connection, transactions of 1,000 rows, or the figure is the fsync);
 * the schemes alternate within each round and the median round is reported, with the ratio to
 * the counter. Then each key expression alone: 100,000 evaluations in one SELECT, µs per call.
 */
import { cpus } from 'node:os';
import { serviceSkip } from '../../test/helpers/services.js';
import { type BenchEngine, mariadb, postgres, type Scheme, sqlite } from './engines.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

const quick = process.argv.includes('--quick');
const ROWS = arg('rows', quick ? 400 : 4000);
const CLIENTS = arg('clients', 4);
const ROUNDS = arg('rounds', quick ? 1 : 3);
const ALONE = quick ? 10_000 : 100_000;
const BULK = quick ? 5_000 : 50_000;
const PG_URL = process.env.IDFORGE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MY_URL = process.env.IDFORGE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** `rows` INSERTs of `s` over the engine's clients (in transactions of `batch`); ms taken. */
async function insertRun(e: BenchEngine, s: Scheme, rows: number): Promise<number> {
  const conns = await Promise.all(Array.from({ length: e.clients }, () => e.connect()));
  const per = Math.ceil(rows / e.clients);
  const start = performance.now();
  await Promise.all(
    conns.map(async (c, k) => {
      for (let i = 0; i < per; i += e.batch) {
        if (e.batch > 1) await c.run('BEGIN');
        for (let j = i; j < Math.min(per, i + e.batch); j++) await c.run(s.insert, [k * per + j]);
        if (e.batch > 1) await c.run('COMMIT');
      }
    }),
  );
  const ms = performance.now() - start;
  await Promise.all(conns.map((c) => c.close()));
  return ms;
}

async function aloneUs(e: BenchEngine, expr: string | null): Promise<number | undefined> {
  if (expr === null) return undefined;
  const c = await e.connect();
  await c.run(e.alone(expr, 1000));
  const start = performance.now();
  await c.run(e.alone(expr, ALONE));
  const us = ((performance.now() - start) * 1000) / ALONE;
  await c.close();
  return us;
}

/** µs per row of one INSERT … SELECT of BULK rows (after one of 1,000 to warm up). */
async function bulkUs(e: BenchEngine, s: Scheme): Promise<number> {
  const c = await e.connect();
  await c.run(s.bulk(1000));
  const start = performance.now();
  await c.run(s.bulk(BULK));
  const us = ((performance.now() - start) * 1000) / BULK;
  await c.close();
  return us;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function bench(e: BenchEngine): Promise<void> {
  const c = await e.connect();
  for (const s of e.schemes) await c.run(s.create);
  await c.close();
  const title = await e.version();
  for (const s of e.schemes) await insertRun(e, s, Math.min(200, ROWS)); // warm-up
  const times = new Map<string, number[]>(e.schemes.map((s) => [s.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = e.schemes.map((_, i) => e.schemes[(i + r) % e.schemes.length]!);
    for (const s of order) times.get(s.name)!.push(await insertRun(e, s, ROWS));
  }
  const how =
    e.batch > 1
      ? `1 connection, ${fmt(ROWS, 0)} INSERTs in transactions of ${e.batch}`
      : `${e.clients} connections × ${fmt(Math.ceil(ROWS / e.clients), 0)} single-row INSERTs (autocommit)`;
  console.log(`\n${title}: ${how}, median of ${ROUNDS} round(s)`);
  const base = median(times.get(e.schemes[0]!.name)!);
  const bulk = new Map<string, number>();
  for (const s of e.schemes) bulk.set(s.name, await bulkUs(e, s));
  const bulkBase = bulk.get(e.schemes[0]!.name)!;
  const rows: string[][] = [
    [
      'key',
      'inserts/s',
      'µs/insert',
      `vs ${e.schemes[0]!.name}`,
      'bulk µs/row',
      'bulk vs',
      'alone µs/call',
    ],
  ];
  for (const s of e.schemes) {
    const ms = median(times.get(s.name)!);
    const alone = await aloneUs(e, s.expr);
    rows.push([
      s.name,
      fmt((ROWS / ms) * 1000, 0),
      fmt((ms * 1000) / ROWS),
      `${fmt(ms / base, 2)}×`,
      fmt(bulk.get(s.name)!, 2),
      `${fmt(bulk.get(s.name)! / bulkBase, 2)}×`,
      alone === undefined ? '—' : fmt(alone, 2),
    ]);
  }
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(r.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join('  '));
}

async function main(): Promise<void> {
  console.log(
    `idforge bench:sql — ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
  );
  const engines: (() => Promise<BenchEngine>)[] = [];
  const pgUrl = new URL(PG_URL);
  const myUrl = new URL(MY_URL);
  if (!(await serviceSkip('PostgreSQL', pgUrl.hostname, Number(pgUrl.port || 5432)))) {
    engines.push(() => postgres(PG_URL, CLIENTS));
  } else console.log('PostgreSQL: not reachable, skipped');
  if (!(await serviceSkip('MariaDB', myUrl.hostname, Number(myUrl.port || 3306)))) {
    engines.push(() => mariadb(MY_URL, CLIENTS));
  } else console.log('MariaDB: not reachable, skipped');
  engines.push(async () => sqlite(1000));
  for (const open of engines) {
    const e = await open();
    try {
      await bench(e);
    } finally {
      await e.drop();
    }
  }
}

await main();
