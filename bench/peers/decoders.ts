/**
 * Section 1c of the peer benchmark alone: each decoder against its floor and its peers
 * (decoder-group.ts), 3 interleaved rounds (`--quick`: 1 short one). What `npm run bench`
 * prints for the decoders, in about 70 s rather than the whole run's minutes:
 *
 *   node --import ./scripts/dev-loader.mjs bench/peers/decoders.ts [--quick]
 */
import { checkDecoderFloors, decoderGroups, decoderTable } from './decoder-group.js';
import { loadAverage, machineLines, progress, readOptions } from './env.js';
import { heading, roundsTable } from './report.js';
import { measureSpeed, medians } from './speed.js';

const options = readOptions(process.argv.slice(2), process.env);
console.log('## idforge decoders against their floor\n');
console.log(machineLines(options).join('\n'));
checkDecoderFloors();
const speed = await measureSpeed(decoderGroups(), options);
console.log(heading('1c. Decoders: ns per call against the floor (median of the rounds)'));
console.log(decoderTable(medians(speed)).text);
if (options.speedRounds > 1) {
  console.log(heading('Every round (ns/op)'));
  console.log(roundsTable(speed));
}
console.log(`\nload at the end: ${loadAverage()}`);
progress('done');
