// 8 processes x 200,000 numbers from one segment tag on the embedded SQLite store, and the
// negative control (the cheapest real store to run it on).
import { join } from 'node:path';
import { suiteTempDir } from '../helpers/temp.js';
import { sequenceFleetSuite } from './sequences.js';

const dir = suiteTempDir('idforge-seq-sqlite-');
let n = 0;
sequenceFleetSuite('sqlite', { url: () => `sqlite:${join(dir, `seq-${n++}.db`)}`, control: true });
