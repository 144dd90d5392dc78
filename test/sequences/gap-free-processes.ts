// Gap-free invoice numbers under load, on one engine (issue 22): 8 worker processes × 500
// transactions (fixtures/gap-free-worker.ts), each taking a number with GapFreeSequence.next(tx)
// in its own transaction, inserting the invoice row, and committing or rolling back (30 %,
// seeded). Two workers are SIGKILLed while they hold an uncommitted number; a replacement
// process does the rest of their transactions. The clocks are injected: a monthly reset in
// Europe/Istanbul, the clock stepping 3 s over the run (6 ms a transaction at 500), half the
// workers 1 s behind, so the boundary is crossed a third of the way (two thirds for the late
// half) and both periods are written at once for a while. 4,000 transactions in all: 8,000
// took 100 s on a busy machine and found nothing more. Afterwards, in the invoices committed, each period's numbers
// are exactly 1..N (no gap, no duplicate), and the gap-free row holds N.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { GapFreeStore } from 'idforge/sequences';
import { tsEntry } from '../helpers/bundle.js';
import { eachLine } from '../helpers/lines.js';
import type { WorkerConfig } from './fixtures/gap-free-worker.js';

const fixture = fileURLToPath(new URL('./fixtures/gap-free-worker.ts', import.meta.url));

/** The engine's side: the tables, the committed invoices, the store to read the rows. */
export interface GapFreeEngine {
  readonly engine: WorkerConfig['engine'];
  readonly target: string;
  readonly namespace: string;
  /** Creates the gap-free table and the invoices table (period, value, text, worker). */
  setup(): Promise<void>;
  invoices(): Promise<Invoice[]>;
  store(): GapFreeStore<unknown>;
  teardown(): Promise<void>;
}

export interface GapFreeSuiteOptions {
  readonly skip: string | false;
  readonly engine: () => GapFreeEngine;
  readonly workers?: number;
  readonly transactions?: number;
  /** Also run the negative control: numbers taken outside the transactions must show gaps. */
  readonly control?: boolean;
}

type Invoice = { period: string; value: bigint; text: string };

/** What is wrong with the committed invoices: a period not exactly 1..N, a text twice. */
function findings(rows: readonly Invoice[]): string[] {
  const found: string[] = [];
  for (const [period, values] of byPeriod(rows)) {
    values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const wrong = values.findIndex((v, i) => v !== BigInt(i + 1));
    if (wrong >= 0) found.push(`${period}: #${wrong + 1} is ${values[wrong]}`);
  }
  if (new Set(rows.map((r) => r.text)).size !== rows.length) found.push('a text twice');
  return found;
}

function byPeriod(rows: readonly Invoice[]): Map<string, bigint[]> {
  const map = new Map<string, bigint[]>();
  for (const r of rows) map.set(r.period, [...(map.get(r.period) ?? []), r.value]);
  return map;
}

/** Istanbul's new year 2027 (UTC+3), in unix ms. */
const BOUNDARY = Date.UTC(2026, 11, 31, 21, 0, 0);
/** ms of the injected clock per transaction, for 1,000 transactions (scaled for fewer). */
const STEP_MS = 3;

interface Run {
  readonly lines: string[];
  readonly exit: Promise<number | string>;
}

function spawnWorker(cfg: WorkerConfig, onLine: (line: string, kill: () => void) => void): Run {
  const child = spawn(process.execPath, [...tsEntry(fixture), JSON.stringify(cfg)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  eachLine(child.stdout, (line) => {
    lines.push(line);
    onLine(line, () => child.kill('SIGKILL'));
  });
  const exit = new Promise<number | string>((resolve) =>
    child.on('close', (code, signal) => resolve((code ?? signal) as number | string)),
  );
  return { lines, exit };
}

/** One worker's transactions, in one process or, when killed at `killAt`, two. */
async function runWorker(
  cfg: WorkerConfig,
): Promise<{ commits: number; killed: boolean; held: string | null }> {
  let held = -1;
  let number: string | null = null;
  const first = spawnWorker(cfg, (line, kill) => {
    if (line.startsWith('H ')) {
      const [, i, period, value] = line.split(' ');
      held = Number(i);
      number = `${period} ${value}`;
      kill();
    }
  });
  const code = await first.exit;
  const done = (r: Run) => r.lines.find((l) => l.startsWith('D '));
  if (held < 0) {
    assert.equal(code, 0, `worker ${cfg.worker}: ${first.lines.join(' | ')}`);
    return { commits: Number(done(first)!.split(' ')[1]), killed: false, held: null };
  }
  assert.equal(code, 'SIGKILL', `worker ${cfg.worker} was killed holding ${held}`);
  const rest = spawnWorker({ ...cfg, from: held + 1, killAt: -1, seed: cfg.seed + 1 }, () => {});
  assert.equal(await rest.exit, 0, `worker ${cfg.worker} (rest): ${rest.lines.join(' | ')}`);
  return { commits: Number(done(rest)!.split(' ')[1]), killed: true, held: number };
}

/** `workers` processes × `transactions` on `engine`, two of them killed holding a number. */
function runAll(engine: GapFreeEngine, workers: number, transactions: number, outside = false) {
  return Promise.all(
    Array.from({ length: workers }, (_, w) =>
      runWorker({
        engine: engine.engine,
        target: engine.target,
        namespace: engine.namespace,
        tag: 'invoices',
        worker: w,
        from: 0,
        to: transactions,
        // Two workers are killed holding a number: one before the boundary, one after.
        killAt:
          w === 0 ? Math.floor(transactions / 5) : w === 3 ? Math.floor(transactions * 0.6) : -1,
        clockBaseMs: BOUNDARY - 1000,
        skewMs: w % 2 === 1 ? -1000 : 0,
        stepMs: (STEP_MS * 1000) / transactions,
        seed: 1000 + w,
        outside,
      }),
    ),
  );
}

export function gapFreeSuite(name: string, options: GapFreeSuiteOptions): void {
  const workers = options.workers ?? 8;
  const transactions = options.transactions ?? 500;
  describe(`gap-free numbers on ${name}`, { skip: options.skip }, () => {
    test(`${workers} processes × ${transactions} transactions: each period committed exactly 1..N, across rollbacks, kills and a boundary`, async (t) => {
      const engine = options.engine();
      await engine.setup();
      try {
        const results = await runAll(engine, workers, transactions);
        assert.equal(results.filter((r) => r.killed).length, 2);
        const rows = await engine.invoices();
        const periods = byPeriod(rows);
        assert.deepEqual([...periods.keys()].sort(), ['2026-12', '2027-01'], 'a boundary crossed');
        assert.deepEqual(findings(rows), [], 'each period exactly 1..N, each text once');
        const committed = new Set(rows.map((r) => `${r.period} ${r.value}`));
        for (const r of results.filter((x) => x.killed)) {
          assert.ok(committed.has(r.held!), `the killed writer's ${r.held} went to another writer`);
        }
        for (const [period, values] of periods) {
          assert.equal(await engine.store().last('invoices', period), BigInt(values.length));
        }
        t.diagnostic(
          `${rows.length} committed: ${[...periods].map(([p, v]) => `${p} 1..${v.length}`).join(', ')}`,
        );
        const texts = new Set(rows.map((r) => r.text));
        assert.ok(texts.has('INV-2026-12-000001') && texts.has('INV-2027-01-000001'));
        const commits = results.reduce((s, r) => s + r.commits, 0);
        // The killed workers' commits before the kill are rows too: at least the rest's.
        assert.ok(rows.length >= commits, `${rows.length} rows, ${commits} counted commits`);
        assert.ok(rows.length < workers * transactions * 0.8, 'about 30 % rolled back');
      } finally {
        await engine.teardown();
      }
    });
    if (options.control !== true) return;
    test('negative control: numbers taken outside the transactions leave gaps the check finds', async () => {
      const engine = options.engine();
      await engine.setup();
      try {
        await runAll(engine, 4, 100, true);
        const found = findings(await engine.invoices());
        assert.ok(found.length > 0, 'rolled-back numbers were not given back: gaps');
      } finally {
        await engine.teardown();
      }
    });
  });
}
