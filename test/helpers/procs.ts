// Spawns test/faults/fixtures/node-proc.ts processes and parses what they print.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { tsEntry } from './bundle.js';
import { eachLine } from './lines.js';

const fixture = fileURLToPath(new URL('../faults/fixtures/node-proc.ts', import.meta.url));

export interface NodeProc {
  readonly child: ChildProcess;
  readonly ids: bigint[];
  readonly errors: string[];
  readonly logs: string[];
  workerId: number | null;
  fatal: string | null;
  /** Resolves at 'R' (ready) or rejects at exit without it. */
  readonly ready: Promise<number>;
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
}

export function startNode(config: Record<string, unknown>): NodeProc {
  const child = spawn(process.execPath, [...tsEntry(fixture), JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let onReady!: (w: number) => void;
  let onNotReady!: (e: Error) => void;
  const ready = new Promise<number>((res, rej) => {
    onReady = res;
    onNotReady = rej;
  });
  ready.catch(() => undefined);
  const proc: NodeProc = {
    child,
    ids: [],
    errors: [],
    logs: [],
    workerId: null,
    fatal: null,
    ready,
    exited: new Promise((res) => {
      child.on('close', (code, signal) => {
        onNotReady(new Error(`exited before ready: ${proc.fatal ?? signal ?? code}`));
        res(code ?? signal ?? -1);
      });
    }),
  };
  const handle = (line: string) => {
    const kind = line[0];
    const rest = line.slice(2);
    if (kind === 'I') for (const s of rest.split(' ')) proc.ids.push(BigInt(s));
    else if (kind === 'R') {
      proc.workerId = Number(rest.split(' ')[0]);
      onReady(proc.workerId);
    } else if (kind === 'E') proc.errors.push(rest);
    else if (kind === 'X') proc.fatal = rest;
    else if (kind === 'L') proc.logs.push(rest);
  };
  eachLine(child.stdout!, handle);
  return proc;
}

/** Number of values that occur more than once. */
export function duplicates(ids: Iterable<bigint>): number {
  const seen = new Set<bigint>();
  let dups = 0;
  for (const id of ids) {
    if (seen.has(id)) dups++;
    else seen.add(id);
  }
  return dups;
}

/** The store URL, after creating its schema (what `idforge migrate` does). */
export async function migrated(url: string): Promise<string> {
  const store = await openLeaseStore(url, { autoMigrate: false });
  await store.migrate();
  await store.close();
  return url;
}
