/**
 * An exclusive lock between the processes of one host: the file `PATH.lock`, created with
 * O_CREAT|O_EXCL (`'wx'`) and holding `{"pid", "host", "token"}` of its holder. Whoever creates
 * it holds the lock until it unlinks it.
 *
 * A lock whose holder is gone must not block the store for ever, so a lock is **stale**, and may
 * be broken, when its holder's pid is dead on this host (`process.kill(pid, 0)` throws ESRCH) or
 * when the file is older than `staleMs` (a holder keeps it for milliseconds; 30 s means a frozen
 * or rebooted holder). Breakers take turns through a second file, `PATH.lock.break` (also 'wx'),
 * and under it check that the lock is still the very file they judged stale (same inode, same
 * token) before unlinking it: two breakers can never remove a fresh lock taken in between.
 * A `.break` file older than 5 s was left by a breaker that died in those few microseconds and is
 * removed.
 *
 * Not for several hosts: pids mean nothing across hosts and network file systems may not honour
 * O_EXCL.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link FileLock}. */
export interface FileLockOptions {
  /** How long {@link FileLock.acquire} waits for a held lock, ms. */
  readonly timeoutMs: number;
  /** Age after which a lock is stale whatever its holder, ms. */
  readonly staleMs: number;
}

/** What a lock file says, with its inode and modification time. */
interface Seen {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly body: string;
  readonly pid: number | null;
  readonly host: string | null;
  readonly token: string | null;
}

const BREAK_STALE_MS = 5000;
const MAX_BACKOFF_MS = 25;

/** The error code of a Node.js system error, else undefined. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** True unless `pid` certainly does not run on this host (EPERM: it runs as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== 'ESRCH';
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

/** A lock file; stateless between calls, so one instance serves any number of acquisitions. */
export class FileLock {
  readonly path: string;
  readonly #breakPath: string;
  readonly #timeoutMs: number;
  readonly #staleMs: number;

  constructor(path: string, options: FileLockOptions) {
    this.path = path;
    this.#breakPath = `${path}.break`;
    this.#timeoutMs = options.timeoutMs;
    this.#staleMs = options.staleMs;
  }

  /**
   * Takes the lock, retrying with a growing, jittered backoff (1 to 25 ms) and breaking a stale
   * lock; resolves the token to pass to {@link verify} and {@link release}. Rejects with an
   * Error naming the holder after `timeoutMs`, or with the file system's error (EACCES, ENOENT
   * for a missing directory, ENOSPC, ...).
   */
  async acquire(): Promise<string> {
    const token = randomUUID();
    const body = JSON.stringify({ pid: process.pid, host: hostname(), token });
    const deadline = performance.now() + this.#timeoutMs;
    let backoffMs = 1;
    for (;;) {
      if (this.#tryCreate(body)) return token;
      const broke = this.#breakIfStale();
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(
          `timed out after ${this.#timeoutMs} ms waiting for the lock ${this.path} (${this.#holder()})`,
        );
      }
      await sleep(broke ? 0 : Math.min(left, backoffMs * (0.5 + Math.random())));
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    }
  }

  /** Throws unless the lock is still the one `token` took (it was not broken as stale). */
  verify(token: string): void {
    const seen = this.#inspect();
    if (seen?.token !== token) {
      throw new Error(
        `the lock ${this.path} was broken as stale while this process held it (${this.#holder()})`,
      );
    }
  }

  /** Removes the lock if `token` still holds it; throws the file system's error otherwise. */
  release(token: string): void {
    if (this.#inspect()?.token === token) unlinkIfPresent(this.path);
  }

  #tryCreate(body: string): boolean {
    let fd: number;
    try {
      fd = openSync(this.path, 'wx');
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw error;
    }
    try {
      writeSync(fd, body);
    } catch (error) {
      closeSync(fd);
      unlinkIfPresent(this.path);
      throw error;
    }
    closeSync(fd);
    return true;
  }

  /** The lock file as it is now, or null when there is none. */
  #inspect(): Seen | null {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
    try {
      const { ino, mtimeMs } = fstatSync(fd);
      const body = readFileSync(fd, 'utf8');
      let parsed: { pid?: unknown; host?: unknown; token?: unknown } = {};
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        // Empty or partial: its creator is between open and write. Only age can make it stale.
      }
      return {
        ino,
        mtimeMs,
        body,
        pid:
          Number.isSafeInteger(parsed.pid) && (parsed.pid as number) > 0
            ? (parsed.pid as number)
            : null,
        host: typeof parsed.host === 'string' ? parsed.host : null,
        token: typeof parsed.token === 'string' ? parsed.token : null,
      };
    } finally {
      closeSync(fd);
    }
  }

  #isStale(seen: Seen): boolean {
    if (Date.now() - seen.mtimeMs > this.#staleMs) return true;
    return seen.pid !== null && seen.host === hostname() && !alive(seen.pid);
  }

  /**
   * Breaks the lock if it is stale; true when it was broken or had vanished (try again at
   * once), false when it is live or another process is breaking it.
   */
  #breakIfStale(): boolean {
    const seen = this.#inspect();
    if (seen === null) return true;
    if (!this.#isStale(seen)) return false;
    let fd: number;
    try {
      fd = openSync(this.#breakPath, 'wx');
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      this.#clearAbandonedBreak();
      return false;
    }
    closeSync(fd);
    try {
      const now = this.#inspect();
      if (now !== null && now.ino === seen.ino && now.body === seen.body) {
        unlinkIfPresent(this.path);
      }
    } finally {
      unlinkIfPresent(this.#breakPath);
    }
    return true;
  }

  #clearAbandonedBreak(): void {
    try {
      if (Date.now() - statSync(this.#breakPath).mtimeMs > BREAK_STALE_MS) {
        unlinkIfPresent(this.#breakPath);
      }
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }

  /** Who holds the lock, for messages. */
  #holder(): string {
    try {
      const seen = this.#inspect();
      if (seen === null) return 'now free';
      const age = Math.round(Date.now() - seen.mtimeMs);
      return `held by pid ${seen.pid ?? '?'} on ${seen.host ?? '?'} for ${age} ms`;
    } catch (error) {
      return `unreadable: ${(error as Error).message}`;
    }
  }
}
