/** `idforge gen snowflake --store URL`: IDs under a leased worker ID. */
import { Buffer } from 'node:buffer';
import { createSnowflakeNode, type NodeLogger } from '../../coord/index.js';
import { getLayout } from '../../core/index.js';
import { openLeaseStore } from '../../stores/index.js';
import { type CliIo, LineWriter, UsageError } from '../io.js';
import { type GenValues, integer, parseFields } from './gen.js';

/** Size of the batches taken from the node (each waits for readiness if needed). */
const CHUNK = 65_536;

function workerRange(text: string | undefined): number | [number, number] | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (m === null) throw new UsageError(`--workers: expected MIN-MAX or one ID, got "${text}"`);
  const min = integer('--workers', m[1]!, 0, 2 ** 32);
  return m[2] === undefined ? min : [min, integer('--workers', m[2], min, 2 ** 32)];
}

export async function genFromStore(
  values: GenValues,
  count: number,
  format: string,
  io: CliIo,
): Promise<number> {
  if (values.store === undefined) throw new UsageError('--workers needs --store URL');
  if (values.node !== undefined) {
    throw new UsageError('--node and --store exclude each other: the store assigns the node');
  }
  const layout = getLayout(values.layout ?? 'default');
  const workerIds = workerRange(values.workers);
  const logger: NodeLogger = {
    info: (m) => io.stderr.write(`${m}\n`),
    warn: (m) => io.stderr.write(`${m}\n`),
    error: (m) => io.stderr.write(`${m}\n`),
  };
  const store = await openLeaseStore(values.store);
  try {
    const node = await createSnowflakeNode({
      store,
      layout,
      fields: parseFields(values.field),
      ...(workerIds === undefined ? {} : { workerIds }),
      ...(values.ttl === undefined ? {} : { ttlMs: integer('--ttl', values.ttl, 100, 2 ** 31) }),
      acquireTimeoutMs: values.wait === undefined ? 0 : integer('--wait', values.wait, 0, 2 ** 31),
      logger,
    });
    try {
      const out = new LineWriter(io.stdout);
      const json: string[] = [];
      const bytes = new Uint8Array(8);
      const view = new DataView(bytes.buffer);
      for (let done = 0; done < count; ) {
        const ids = await node.batchAsync(Math.min(CHUNK, count - done));
        done += ids.length;
        for (const id of ids) {
          if (format === 'json') json.push(id.toString());
          else if (format === 'text') out.line(id.toString());
          else {
            view.setBigUint64(0, id);
            out.line(Buffer.from(bytes).toString(format === 'hex' ? 'hex' : 'base64'));
          }
        }
      }
      if (format === 'json') io.stdout.write(`${JSON.stringify(json)}\n`);
      out.flush();
    } finally {
      await node.close();
    }
  } finally {
    await store.close();
  }
  return 0;
}
