/**
 * The registry of backends: the only list of them. Adding a backend is one folder with its
 * `backend.ts` descriptor and one line in BUILT_IN below (docs/architecture.md, "Adding a
 * backend"); an application (or a test) may register one of its own with
 * {@link registerBackend}. Everything that asks which backend can hold what asks here.
 *
 * Imports only the descriptors, which import only backend.ts and their own leaf rules.ts:
 * loading the registry loads no adapter and no driver.
 */
import { type Backend, type BackendPort, STORE_PORTS } from './backend.js';
import { etcdBackend } from './etcd/backend.js';
import { fileBackend } from './file/backend.js';
import { leveldbBackend } from './leveldb/backend.js';
import { mysqlBackend } from './mysql/backend.js';
import { postgresBackend } from './postgres/backend.js';
import { redisBackend } from './redis/backend.js';
import { sqliteBackend } from './sqlite/backend.js';

/** The backends of this package, in the order messages and docs list them. */
const BUILT_IN: readonly Backend[] = [
  sqliteBackend,
  fileBackend,
  postgresBackend,
  mysqlBackend,
  redisBackend,
  etcdBackend,
  leveldbBackend,
];

const registered: Backend[] = [];
/** Every scheme (aliases and shown-only schemes included) to its backend. */
const bySchemeName = new Map<string, Backend>();

const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/;

/**
 * Adds a backend, after the built-in ones. Throws `RangeError` when its name or one of its
 * schemes is not a lower-case URL scheme or is already taken, or when it opens nothing.
 */
export function registerBackend(backend: Backend): void {
  const schemes = [backend.name, ...(backend.aliases ?? []), ...(backend.shownSchemes ?? [])];
  for (const s of schemes) {
    if (!SCHEME_NAME.test(s)) {
      throw new RangeError(`registerBackend: "${s}" is not a lower-case URL scheme`);
    }
    const owner = bySchemeName.get(s);
    if (owner !== undefined) {
      throw new RangeError(`registerBackend: the scheme "${s}" is already ${owner.name}'s`);
    }
  }
  if (Object.keys(backend.open).length === 0) {
    throw new RangeError(`registerBackend: ${backend.name} opens nothing (its open is empty)`);
  }
  registered.push(backend);
  for (const s of schemes) bySchemeName.set(s, backend);
}

for (const backend of BUILT_IN) registerBackend(backend);

/** Every registered backend, built-in ones first, in registration order. */
export function backends(): readonly Backend[] {
  return registered;
}

/**
 * The backend a scheme (any case; an alias or a shown-only scheme too) names, or undefined.
 * `storeScheme` returns the backend's name for an alias.
 */
export function backendOf(scheme: string): Backend | undefined {
  return bySchemeName.get(scheme.toLowerCase());
}

/** The backends that implement `port`, in registry order. */
export function backendsWith(port: BackendPort): readonly Backend[] {
  return registered.filter((b) => b.open[port] !== undefined);
}

/** Whether a backend holds any store (leases, segments, counters, marks), not only a bench. */
export function holdsAStore(backend: Backend): boolean {
  return STORE_PORTS.some((p) => backend.open[p] !== undefined);
}

/**
 * The backend's URL forms joined as a message suggests them: "sqlite:PATH, postgres://... or
 * mysql://...".
 */
export function formsOf(list: readonly Backend[]): string {
  const forms = list.map((b) => b.form);
  return forms.length <= 1
    ? (forms[0] ?? '')
    : `${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1]}`;
}

/** Whether the backend that `scheme` names (as `storeScheme` returns it) opens `port`. */
export function backendOpens(scheme: string, port: BackendPort): boolean {
  const backend = bySchemeName.get(scheme);
  return backend?.name === scheme && backend.open[port] !== undefined;
}
