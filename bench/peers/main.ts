/**
 * idforge against its npm peers, in one process: `npm run bench` (`-- --quick` or
 * `BENCH_QUICK=1` for a smoke test). What each section measures, and why: docs/benchmarks.md.
 *
 * 1  speed per scheme (mitata), then a summary with the speed goals; the HLC and shard-key
 *    groups (hlc-group.ts, shard-group.ts) check their peers' results before timing;
 * 1c each decoder against its floor, the bare work in a plain loop (decoder-group.ts);
 * 2a Snowflake duplicates from one generator in a tight loop;
 * 2b Snowflake IDs reissued after the wall clock steps back;
 * 2c idforge's Snowflake throughput against its layout's cap;
 * 3  the browser bundle of one call against the peer's (bundle.ts).
 *
 * Sets exit code 1 when idforge itself issues a duplicate or a non-increasing Snowflake ID:
 * a speed goal missed is reported, a uniqueness failure fails the run.
 */
import { BUNDLE_GOAL, bundleSection } from './bundle.js';
import { duplicateContenders, rollbackCases } from './contenders.js';
import { checkDecoderFloors, DECODER_GOAL, decoderGroups, decoderTable } from './decoder-group.js';
import { loadAverage, machineLines, progress, readOptions } from './env.js';
import { hlcComparisons, hlcGroups } from './hlc-group.js';
import { heading, roundsTable, summaryTable, table, verdict } from './report.js';
import { duplicateSection, rollbackSection, throughputSection } from './safety-report.js';
import { type SpeedPlan, speedPlan } from './schemes.js';
import { shardComparisons, shardGroups } from './shard-group.js';
import { measureSpeed, medians } from './speed.js';

const THROUGHPUT_GOAL = 0.95;

/** The schemes' plan, the groups of idforge/hlc and idforge/shard, then the decoders. */
function fullPlan(): SpeedPlan {
  const schemes = speedPlan();
  checkDecoderFloors();
  return {
    groups: [...schemes.groups, ...hlcGroups(), ...shardGroups(), ...decoderGroups()],
    comparisons: [...schemes.comparisons, ...hlcComparisons, ...shardComparisons],
  };
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2), process.env);
  console.log('## idforge peer benchmark\n');
  console.log(machineLines(options).join('\n'));

  const plan = fullPlan();
  const speed = await measureSpeed(plan.groups, options);
  const summary = summaryTable(plan.comparisons, medians(speed));
  const decoders = decoderTable(medians(speed));
  const rounds = options.speedRounds === 1 ? '1 round' : `median of ${options.speedRounds} rounds`;
  console.log(
    heading(`1. Speed: ns per ID, ${rounds} (ratio = peer ns / idforge ns; > 1: idforge faster)`),
  );
  console.log(summary.text);
  if (options.speedRounds > 1) {
    console.log(heading('1b. Every round (ns/op; the summary uses the median)'));
    console.log(roundsTable(speed));
  }
  console.log(heading(`1c. Decoders against their floor, ns per call (${rounds})`));
  console.log(decoders.text);

  const contenders = duplicateContenders();
  console.log(heading('2. Snowflake: what speed must not cost (each run in a fresh isolate)'));
  const config = contenders.map((c) => [c.name, c.note, c.timeSource]);
  console.log(table(['generator', 'configuration', 'reads the time from'], config));

  const dups = await duplicateSection(options);
  console.log(
    heading(`2a. Duplicates from one generator, ${options.duplicateLoopMs} ms tight loop`),
  );
  console.log(dups.text);

  const rollback = await rollbackSection(options);
  const { rollbackBeforeMs: before, rollbackStepMs: step, rollbackAfterMs: after } = options;
  console.log(
    heading(`2b. Reissued after a ${step} ms step back (${before} ms before, ${after} ms after)`),
  );
  console.log(rollback.text);

  const throughput = await throughputSection(options, THROUGHPUT_GOAL);
  console.log(
    heading(`2c. idforge Snowflake throughput, ${options.throughputLoopMs} ms tight loop`),
  );
  console.log(throughput.text);

  const bundles = await bundleSection();
  console.log(heading('3. Browser bundle of one call: esbuild --bundle --minify, then gzip -9'));
  console.log(bundles.text);

  const idforgeDuplicates = dups.byName.get('idforge') ?? Number.NaN;
  const idforgeReissued = rollbackCases()
    .filter((c) => c.contender.name === 'idforge')
    .map((c) => rollback.byName.get(c.label) ?? Number.NaN);
  const uniqueness = [
    ['2a idforge duplicates = 0', String(idforgeDuplicates), idforgeDuplicates === 0],
    [
      '2b idforge reissued = 0 (every clock)',
      idforgeReissued.join(', '),
      idforgeReissued.every((n) => n === 0),
    ],
    [
      '2c idforge strictly increasing',
      String(throughput.strictlyIncreasing),
      throughput.strictlyIncreasing,
    ],
  ] as const;
  const rows = [
    ...summary.verdicts.map((v) => [`1 ${v.scheme} speed`, v.detail, verdict(v.pass)]),
    ...decoders.verdicts.map((v) => [
      `1c ${v.scheme} ≤ ${DECODER_GOAL}× its floor`,
      v.detail,
      verdict(v.pass),
    ]),
    ...uniqueness.map(([goal, value, pass]) => [goal, value, verdict(pass)]),
    [
      `2c idforge ≥ ${THROUGHPUT_GOAL * 100} % of the cap`,
      `${(throughput.fractionOfCap * 100).toFixed(1)} %`,
      verdict(throughput.fractionOfCap >= THROUGHPUT_GOAL),
    ],
    ...bundles.rows.map((r) => [
      `3 ${r.scheme} bundle ≤ ${BUNDLE_GOAL}× the peer's (gzip)`,
      `${r.idforge.gzipBytes} B / ${r.peer.gzipBytes} B = ${r.ratio.toFixed(2)}×`,
      verdict(r.pass),
    ]),
  ];
  console.log(heading('Goals'));
  console.log(table(['goal', 'measured', 'verdict'], rows));
  if (uniqueness.some(([, , pass]) => !pass)) {
    process.exitCode = 1;
    console.log('\nFAILED: idforge issued a duplicate or a non-increasing Snowflake ID.');
  }
  console.log(`\nload at the end: ${loadAverage()}`);
  progress('done');
}

await main();
