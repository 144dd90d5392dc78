/**
 * Runs one section-2 task in a fresh worker thread (same process, new V8 isolate), so every
 * generator starts from cold JIT state with monomorphic call sites, and a `Date.now` patched
 * by the rollback test never leaks into another generator or into the main thread.
 */
import { Worker } from 'node:worker_threads';
import type { DuplicateResult, RollbackResult, ThroughputResult } from './safety.js';

interface Task {
  /** Run a separate instance of the generator this long first (see `warmUp`). */
  readonly warmUpMs: number;
}

export interface DuplicatesTask extends Task {
  readonly kind: 'duplicates';
  /** Contender name (contenders.ts). */
  readonly name: string;
  readonly ms: number;
}

export interface RollbackTask extends Task {
  readonly kind: 'rollback';
  /** Rollback case label (contenders.ts). */
  readonly label: string;
  readonly beforeMs: number;
  readonly stepMs: number;
  readonly afterMs: number;
}

export interface ThroughputTask extends Task {
  readonly kind: 'throughput';
  readonly ms: number;
}

export type SafetyTask = DuplicatesTask | RollbackTask | ThroughputTask;

/** 2c's result with what only the worker knows: the subject's name, cap and waits. */
export interface ThroughputReport extends ThroughputResult {
  readonly name: string;
  readonly capPerMs: number;
  readonly exhaustionWaits: number;
}

export type SafetyResult = DuplicateResult | RollbackResult | ThroughputReport;

const WORKER = new URL('./safety-worker.ts', import.meta.url).href;
const LOADER = new URL('../../scripts/dev-loader.mjs', import.meta.url).href;

// Node 20 workers do not inherit the loader hooks of `--import`: the worker is a one-line
// module that registers them (scripts/dev-loader.mjs), then imports the TypeScript entry.
const BOOT = `import(${JSON.stringify(LOADER)}).then(() => import(${JSON.stringify(WORKER)}));`;

export function isolated(task: DuplicatesTask): Promise<DuplicateResult>;
export function isolated(task: RollbackTask): Promise<RollbackResult>;
export function isolated(task: ThroughputTask): Promise<ThroughputReport>;
/** Runs `task` in a new worker; rejects with the worker's error if it throws. */
export function isolated(task: SafetyTask): Promise<SafetyResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOT, { eval: true, workerData: task });
    let result: SafetyResult | undefined;
    worker.once('message', (message: SafetyResult) => {
      result = message;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`${task.kind} worker exited with code ${code} and no result`));
    });
  });
}
