// npm run test:mutation [module...] [--jobs N] [--all] [--sample N] [--list] [--json FILE]
//                       [--match FILE:LINE] [--seed N]
//
// Measures how strong the tests of the safety-critical modules are: each mutant (a small
// change to the source, mutants.ts) is written into a sandbox copy of the repository and the
// module's own test files run against it, stopping at the first that fails (first the files
// that killed the same source file's earlier mutants, then the fastest).
// A mutant a test notices is killed; one that makes a test run past its timeout (3x its
// baseline + 15 s) is killed too, and said so; one every test passes survived. Mutants
// listed in equivalent.json (with the reason they cannot be told apart) are counted apart.
// The mutants of a module are a sample drawn with a fixed seed (config.ts says how many);
// --all takes every one. Runs at nice 19, one mutant at a time (--jobs 2 at most).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../../test/helpers/seeded-random.js';
import { MODULES, type ModuleConfig } from './config.js';
import { baseline, type Outcome, runMutant, stopAll, type TestTimes } from './execute.js';
import { type Mutant, mutantsOf } from './mutants.js';
import { createSandbox, removeSandbox } from './sandbox.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The default seed of the samples; --seed N draws another. */
const SEED = 34;

interface Equivalent {
  readonly file: string;
  readonly code: string;
  readonly original: string;
  readonly replacement: string;
  readonly reason: string;
}

interface Options {
  readonly modules: readonly ModuleConfig[];
  readonly jobs: number;
  readonly all: boolean;
  readonly sample: number | undefined;
  readonly list: boolean;
  readonly json: string | undefined;
  /** Only the sampled mutants whose file:line:col contains one of these (comma-separated). */
  readonly match: string | undefined;
  readonly seed: number;
}

interface ModuleResult {
  readonly name: string;
  readonly candidates: number;
  readonly outcomes: { mutant: Mutant; outcome: Outcome }[];
  readonly error?: string;
}

function parseArgs(argv: string[]): Options {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i < 0 ? undefined : argv.splice(i, 2)[1];
  };
  const jobs = Number(value('--jobs') ?? 1);
  const sample = value('--sample');
  const json = value('--json');
  const match = value('--match');
  const seed = Number(value('--seed') ?? SEED);
  const flag = (f: string) => {
    const i = argv.indexOf(f);
    if (i >= 0) argv.splice(i, 1);
    return i >= 0;
  };
  const all = flag('--all');
  const list = flag('--list');
  const unknown = argv.filter((a) => !MODULES.some((m) => m.name === a));
  if (unknown.length > 0 || !(jobs >= 1 && jobs <= 2)) {
    console.error(`test:mutation: unknown ${unknown.join(', ') || `--jobs ${jobs} (1 or 2)`}`);
    console.error(`modules: ${MODULES.map((m) => m.name).join(', ')}`);
    process.exit(2);
  }
  const modules = argv.length === 0 ? MODULES : MODULES.filter((m) => argv.includes(m.name));
  const n = sample === undefined ? undefined : Number(sample);
  return { modules, jobs, all, sample: n, list, json, match, seed };
}

function candidates(module: ModuleConfig): Mutant[] {
  return module.files.flatMap((f) => {
    const text = readFileSync(join(root, f.path), 'utf8');
    return mutantsOf(f.path, text, f);
  });
}

function sampleOf(all: Mutant[], n: number, name: string, seed: number): Mutant[] {
  if (n >= all.length) return all;
  const next = seededRandom(seed + [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 0));
  const pool = [...all];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as Mutant, pool[i] as Mutant];
  }
  return pool.slice(0, n).sort((a, b) => a.file.localeCompare(b.file) || a.start - b.start);
}

function equivalentOf(m: Mutant, list: readonly Equivalent[]): Equivalent | undefined {
  return list.find(
    (e) =>
      e.file === m.file &&
      e.code === m.code &&
      e.original === m.original &&
      e.replacement === m.replacement,
  );
}

const where = (m: Mutant) => `${m.file}:${m.line}:${m.col}`;
const describe = (m: Mutant) =>
  `${m.operator} ${JSON.stringify(m.original)} -> ${JSON.stringify(m.replacement)}`;
const seconds = (ms: number) =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`
    : `${(ms / 1000).toFixed(1)}s`;

/** The source line of `m` before and after. */
function diff(m: Mutant): string {
  const text = readFileSync(join(root, m.file), 'utf8');
  const lineStart = text.lastIndexOf('\n', m.start - 1) + 1;
  const lineEnd = text.indexOf('\n', m.end);
  const before = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  const after =
    text.slice(lineStart, m.start) +
    m.replacement +
    text.slice(m.end, lineEnd < 0 ? undefined : lineEnd);
  return `      - ${before.trim()}\n      + ${after.trim()}`;
}

/** `tests`' times, the files that killed most of this source file's mutants first, then fastest. */
function order(times: TestTimes, tests: readonly string[], kills = new Map<string, number>()) {
  return times
    .filter((t) => tests.includes(t.file))
    .sort((a, b) => (kills.get(b.file) ?? 0) - (kills.get(a.file) ?? 0) || a.ms - b.ms);
}

async function runModule(
  module: ModuleConfig,
  mutants: Mutant[],
  sandboxes: string[],
  equivalents: readonly Equivalent[],
): Promise<{ mutant: Mutant; outcome: Outcome }[]> {
  const testsOf = (file: string) =>
    module.files.find((f) => f.path === file)?.tests ?? module.tests;
  const used = [...new Set(mutants.flatMap((m) => testsOf(m.file)))];
  const times: TestTimes = await baseline(sandboxes[0] as string, used);
  const began = Date.now();
  /** Per source file, how many of its mutants each test file killed: those run first. */
  const kills = new Map<string, Map<string, number>>();
  const results: { mutant: Mutant; outcome: Outcome }[] = [];
  let next = 0;
  let done = 0;
  const worker = async (sandbox: string) => {
    while (next < mutants.length) {
      const mutant = mutants[next++] as Mutant;
      const eq = equivalentOf(mutant, equivalents);
      const outcome: Outcome = eq
        ? { status: 'equivalent', reason: eq.reason, ms: 0 }
        : await runMutant(
            sandbox,
            mutant,
            order(times, testsOf(mutant.file), kills.get(mutant.file)),
          );
      if (outcome.status === 'killed' || outcome.status === 'timeout') {
        const counts = kills.get(mutant.file) ?? new Map<string, number>();
        counts.set(outcome.by, (counts.get(outcome.by) ?? 0) + 1);
        kills.set(mutant.file, counts);
      }
      results.push({ mutant, outcome });
      done++;
      const elapsed = Date.now() - began;
      const eta = (elapsed / done) * (mutants.length - done);
      const by = outcome.status === 'killed' ? ` by ${outcome.by}` : '';
      console.log(
        `[${module.name}] ${done}/${mutants.length} ${where(mutant)} ${describe(mutant)}: ` +
          `${outcome.status}${by} (${seconds(outcome.ms)}; ETA ${seconds(eta)})`,
      );
    }
  };
  await Promise.all(sandboxes.map(worker));
  return results.sort(
    (a, b) => a.mutant.file.localeCompare(b.mutant.file) || a.mutant.start - b.mutant.start,
  );
}

function testFiles(module: ModuleConfig): string[] {
  return [...new Set([...module.tests, ...module.files.flatMap((f) => f.tests ?? [])])];
}

function count(r: ModuleResult) {
  const n = (s: Outcome['status']) => r.outcomes.filter((o) => o.outcome.status === s).length;
  const killed = n('killed');
  const timeout = n('timeout');
  const survived = n('survived');
  const equivalent = n('equivalent');
  const scored = killed + timeout + survived;
  const score = scored === 0 ? 0 : ((killed + timeout) / scored) * 100;
  return { killed, timeout, survived, equivalent, scored, score };
}

function report(results: ModuleResult[]): void {
  console.log('\nmodule               sampled   killed  timeout  survived  equivalent  score');
  for (const r of results) {
    if (r.error !== undefined) {
      console.log(`${r.name.padEnd(20)} not measured: ${r.error}`);
      continue;
    }
    const c = count(r);
    console.log(
      `${r.name.padEnd(20)} ${`${r.outcomes.length}/${r.candidates}`.padStart(8)} ` +
        `${String(c.killed).padStart(7)}  ${String(c.timeout).padStart(7)}  ` +
        `${String(c.survived).padStart(8)}  ${String(c.equivalent).padStart(10)}  ` +
        `${c.score.toFixed(1).padStart(5)} % (${c.killed + c.timeout}/${c.scored})`,
    );
  }
  for (const r of results) {
    const survivors = r.outcomes.filter((o) => o.outcome.status === 'survived');
    if (survivors.length === 0) continue;
    console.log(`\n${r.name}: survivors`);
    for (const { mutant } of survivors)
      console.log(`  ${where(mutant)} ${describe(mutant)}\n${diff(mutant)}`);
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const equivalents = JSON.parse(
    readFileSync(join(root, 'scripts/mutation/equivalent.json'), 'utf8'),
  ) as Equivalent[];
  const plans = options.modules.map((module) => {
    const all = candidates(module);
    const n = options.all ? all.length : (options.sample ?? module.sample);
    const drawn = sampleOf(all, n, module.name, options.seed);
    const { match } = options;
    const wanted = match?.split(',');
    const picked = wanted ? drawn.filter((m) => wanted.some((w) => where(m).includes(w))) : drawn;
    return { module, all, mutants: picked };
  });
  if (options.list) {
    for (const p of plans) {
      console.log(`${p.module.name}: ${p.mutants.length} of ${p.all.length}`);
      for (const m of p.mutants) console.log(`  ${where(m)} ${describe(m)}`);
    }
    return;
  }
  const sandboxes = Array.from({ length: options.jobs }, () => createSandbox(root));
  const cleanup = () => {
    for (const s of sandboxes) removeSandbox(s);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopAll();
      cleanup();
      process.exit(130);
    });
  }
  const results: ModuleResult[] = [];
  try {
    for (const { module, all, mutants } of plans) {
      console.log(
        `[${module.name}] ${mutants.length} of ${all.length} mutants; tests: ${testFiles(module).join(' ')}`,
      );
      try {
        const outcomes = await runModule(module, mutants, sandboxes, equivalents);
        results.push({ name: module.name, candidates: all.length, outcomes });
      } catch (e) {
        results.push({ name: module.name, candidates: all.length, outcomes: [], error: String(e) });
        console.log(`[${module.name}] not measured: ${e}`);
      }
    }
  } finally {
    cleanup();
  }
  report(results);
  if (options.json !== undefined)
    writeFileSync(options.json, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
