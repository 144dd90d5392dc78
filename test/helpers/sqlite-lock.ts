// Another process holding a SQLite database's write lock (test/faults/fixtures/sqlite-lock.ts):
// what a store meets when another process is in the middle of a long write.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tsEntry } from './bundle.js';
import { eachLine } from './lines.js';

const fixture = fileURLToPath(new URL('../faults/fixtures/sqlite-lock.ts', import.meta.url));

export interface HeldLock {
  /** Rolls back and closes: the lock is free once this resolves (the holder has exited). */
  release(): Promise<void>;
}

/** Resolves once another process holds the write lock of the database at `path`. */
export async function holdSqliteLock(path: string): Promise<HeldLock> {
  const child = spawn(process.execPath, [...tsEntry(fixture), path], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`the lock holder exited (${code ?? signal}) before locking ${path}`)),
    );
    eachLine(child.stdout, (line) => {
      if (line === 'locked') resolve();
    });
  });
  return {
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}
