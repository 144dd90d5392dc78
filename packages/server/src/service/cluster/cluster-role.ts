/**
 * Which part of an `idforge serve` node this process plays: the only process (`--processes
 * 1`), the primary of several (cluster-primary.ts: it forks and relays, serving nothing), or
 * one of the processes it forked (a whole service that speaks for the node through its
 * ClusterView, cluster-view.ts).
 */
import cluster from 'node:cluster';
import { PROCESS_INDEX_ENV } from './cluster-primary.js';
import { type ClusterView, workerClusterView } from './cluster-view.js';

/** See the module comment. */
export type ClusterRole =
  | { readonly kind: 'single' }
  | { readonly kind: 'primary' }
  | { readonly kind: 'process'; readonly view: ClusterView };

/**
 * The role of this process in a node of `processes` processes; `env` holds the index the
 * primary gave a forked process. A forked process whose primary goes away (killed, its IPC
 * channel closed) calls `onOrphaned`, so it stops as on SIGTERM instead of serving alone.
 */
export function clusterRole(
  processes: number,
  env: Readonly<Record<string, string | undefined>>,
  onOrphaned: () => void,
): ClusterRole {
  const index = env[PROCESS_INDEX_ENV];
  if (cluster.isWorker && index !== undefined) {
    process.once('disconnect', onOrphaned);
    return { kind: 'process', view: workerClusterView(Number(index), processes) };
  }
  return processes > 1 ? { kind: 'primary' } : { kind: 'single' };
}
