/** Snowflake (and HLC) IDs from a coordinated node, as the routes hand them out. */
import type { SnowflakeGeneOptions } from 'idforge';
import type { SnowflakeNode } from 'idforge/coord';

/** How long a Snowflake request waits for a node that is briefly not ready (a lease renewal). */
export const READY_WAIT_MS = 1000;

/**
 * `count` Snowflake IDs as decimal strings, all with `gene` when given; waits up to
 * READY_WAIT_MS for a node not ready. Rejects as `node.batchAsync` does (`NotReadyError`, ...).
 */
export async function snowflakes(
  node: SnowflakeNode,
  count: number,
  gene?: SnowflakeGeneOptions,
): Promise<string[]> {
  return (
    snowflakesNow(node, count, gene) ?? decimal(await node.batchAsync(count, READY_WAIT_MS, gene))
  );
}

/** {@link snowflakes} when the node can mint them at once; null when it would have to wait. */
export function snowflakesNow(
  node: SnowflakeNode,
  count: number,
  gene?: SnowflakeGeneOptions,
): string[] | null {
  let ids: bigint[];
  try {
    ids = node.batch(count, gene);
  } catch {
    return null;
  }
  return decimal(ids);
}

function decimal(ids: readonly bigint[]): string[] {
  const out = new Array<string>(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = (ids[i] as bigint).toString();
  return out;
}
