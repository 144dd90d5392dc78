/**
 * The whole state of the file store as one JSON document, replaced atomically and durably:
 * every change takes the lock (./lock.ts), reads the document, applies the change, writes
 * `PATH.tmp`, fsyncs it, renames it over PATH and fsyncs the directory, then releases the lock.
 * A crash at any point leaves either the old document or the new one, never a torn one; a change
 * is on disk once {@link StateFile.update} resolves. Readers need no lock: a rename is atomic.
 *
 * Document (times are unix ms; worker IDs and instance IDs are object keys):
 *
 *   { "format": "idforge-file-store", "version": 1,
 *     "namespaces": { NAME: { "leases": { "7": LeaseEntry },
 *                             "marks":  { "7": 1718000000000 },
 *                             "claims": { "7": { INSTANCE_ID: EXPIRES_AT_MS } } } } }
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorCode, FileLock, type FileLockOptions } from './lock.js';

/** One lease, as stored. */
export interface LeaseEntry {
  instanceId: string;
  host: string;
  pid: number;
  startedAtMs: number;
  expiresAtMs: number;
  lastIssuedMs: number | null;
  clockMs: number | null;
  storeClockMs: number | null;
  /** The mark when the lease was granted (absent: none, or an older file): the release's floor. */
  grantMarkMs?: number | null;
}

/** Leases, marks and claims of one namespace; every object has a null prototype. */
export interface NamespaceState {
  leases: Record<string, LeaseEntry>;
  marks: Record<string, number>;
  claims: Record<string, Record<string, number>>;
}

/** The document; `namespaces` has a null prototype. */
export interface StateDocument {
  readonly format: typeof FORMAT;
  readonly version: 1;
  namespaces: Record<string, NamespaceState>;
}

const FORMAT = 'idforge-file-store';

/** An object with no prototype, so that any key (even `__proto__`) is plain data. */
export function dict<T>(from: object = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, from);
}

/** An empty namespace. */
export function emptyNamespace(): NamespaceState {
  return { leases: dict(), marks: dict(), claims: dict() };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the document's shape and rebuilds its maps with null prototypes. Throws Error. */
function parseDocument(text: string, path: string): StateDocument {
  const doc: unknown = JSON.parse(text);
  if (!isObject(doc) || doc.format !== FORMAT || doc.version !== 1 || !isObject(doc.namespaces)) {
    throw new Error(`${path} is not an idforge file store (format ${FORMAT}, version 1)`);
  }
  const namespaces = dict<NamespaceState>();
  for (const [name, ns] of Object.entries(doc.namespaces)) {
    if (!isObject(ns) || !isObject(ns.leases) || !isObject(ns.marks) || !isObject(ns.claims)) {
      throw new Error(`${path}: namespace "${name}" lacks leases, marks or claims`);
    }
    const claims = dict<Record<string, number>>();
    for (const [id, c] of Object.entries(ns.claims)) claims[id] = dict(c as object);
    namespaces[name] = {
      leases: dict(ns.leases),
      marks: dict(ns.marks),
      claims,
    };
  }
  return { format: FORMAT, version: 1, namespaces };
}

/** Forces a rename in `dir` to disk. Windows cannot open a directory; NTFS journals renames. */
function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The store's file. Safe to share within a process (changes queue behind each other, so
 * concurrent calls do not contend for the lock file) and across processes of one host.
 */
export class StateFile {
  readonly path: string;
  readonly #lock: FileLock;
  #tail: Promise<unknown> = Promise.resolve();

  /** `path` should be absolute (a later chdir must not move the store). */
  constructor(path: string, lock: FileLockOptions) {
    this.path = path;
    this.#lock = new FileLock(`${path}.lock`, lock);
  }

  /**
   * The document as last committed; an empty one when the file does not exist. Throws the file
   * system's error, or an Error when the file is not a valid document (never overwritten then).
   */
  read(): StateDocument {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') {
        return { format: FORMAT, version: 1, namespaces: dict() };
      }
      throw error;
    }
    return parseDocument(text, this.path);
  }

  /**
   * Applies `change` to the current document under the lock and commits the result when it
   * differs from what was read (an unchanged document is not rewritten); resolves what `change`
   * returned. Rejects with the lock's or the file system's error; nothing is committed then.
   */
  update<T>(change: (doc: StateDocument) => T): Promise<T> {
    const run = this.#tail.then(() => this.#update(change));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves when every queued change has finished. */
  drain(): Promise<void> {
    return this.#tail.then(() => undefined);
  }

  async #update<T>(change: (doc: StateDocument) => T): Promise<T> {
    const token = await this.#lock.acquire();
    try {
      const doc = this.read();
      const before = JSON.stringify(doc);
      const result = change(doc);
      const after = JSON.stringify(doc);
      if (after !== before) this.#commit(after, token);
      return result;
    } finally {
      this.#lock.release(token);
    }
  }

  #commit(text: string, token: string): void {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.#lock.verify(token);
    renameSync(tmp, this.path);
    fsyncDirectory(dirname(this.path));
  }
}
