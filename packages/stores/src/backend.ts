/**
 * What one backend is, in one value: a {@link Backend} descriptor per backend folder
 * (`<name>/backend.ts`), listed once in the registry (backends.ts). The openers, `migrateStore`,
 * the store roles of the service and the CLI, the URL redaction's per-driver rules, the
 * floor-plan test and the backends table of the docs all read the descriptors; none of them
 * names a backend. What a driver's errors mean is not asked of the registry: each adapter
 * passes its backend's {@link Classify} (`<name>/rules.ts`) with its calls (store-error.ts).
 *
 * A leaf module: types, and the small helpers every descriptor's openers use. It imports
 * nothing at run time, so a descriptor (which imports only this file and its own leaf
 * `rules.ts`, statically) costs nothing to load: its adapters and their driver are reached
 * through `import()` when a URL of its scheme is opened.
 */
import type { BenchEngine } from 'idforge/bench';
import type { LeaseStore } from 'idforge/coord';
import type { BackfillTarget } from 'idforge/public';
import type {
  CounterStore,
  DurableMarkStore,
  PlannableTicketServer,
  SegmentStore,
} from 'idforge/sequences';
import type { SqlFunctionsTarget } from 'idforge/sql';
import type { StoreFileOptions } from './store-path.js';

/**
 * Options of `openLeaseStore` and the other store openers. `create: false` (sqlite:, file:)
 * refuses to create a missing file (`StorePathError`, reason 'missing'): for read-only use;
 * `onCreate` is told the absolute path when opening created the file (a new, empty store).
 */
export interface OpenStoreOptions extends StoreFileOptions {
  /** Give up connecting after this many ms. Default 5000 ({@link CONNECT_TIMEOUT_MS}). */
  readonly connectTimeoutMs?: number;
  /** Create the schema if missing (SQLite, file only; servers need `idforge migrate`). Default true. */
  readonly autoMigrate?: boolean;
  /** Tables schema (PostgreSQL) or key prefix (Redis, etcd); else the URL's ?namespace=. */
  readonly namespace?: string;
}

/** Options of `openTicketServer`. */
export interface TicketServerOptions {
  /** Give up connecting after this many ms. Default 5000 ({@link CONNECT_TIMEOUT_MS}). */
  readonly connectTimeoutMs?: number;
  /** Give up on a statement after this many ms. Default: connectTimeoutMs. */
  readonly queryTimeoutMs?: number;
}

/** How long an opener waits for a server to answer when the caller says nothing. */
export const CONNECT_TIMEOUT_MS = 5000;

/** A store that `migrateStore` can prepare. */
export interface Migratable {
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a backend can be opened as, each with its opener. The first four are stores (what a
 * store URL of `--store`, `--sequences` or `--marks` holds); tickets, bench and backfill are the
 * other ports a database URL serves.
 */
export interface BackendOpeners {
  readonly leases?: (url: string, options: OpenStoreOptions) => Promise<LeaseStore>;
  readonly segments?: (url: string, options: OpenStoreOptions) => Promise<SegmentStore>;
  readonly counters?: (url: string, options: OpenStoreOptions) => Promise<CounterStore>;
  readonly marks?: (url: string, options: OpenStoreOptions) => Promise<DurableMarkStore>;
  readonly tickets?: (url: string, options: TicketServerOptions) => Promise<PlannableTicketServer>;
  readonly bench?: (url: string) => Promise<BenchEngine>;
  readonly backfill?: (url: string) => Promise<BackfillTarget>;
  /** `idforge sql --apply/--remove`: a database that holds idforge's SQL functions. */
  readonly sql?: (url: string) => Promise<SqlFunctionsTarget>;
}

/** A port a backend may implement (a key of {@link BackendOpeners}). */
export type BackendPort = keyof BackendOpeners;

/** The ports that are stores, in the order messages name what a backend holds. */
export const STORE_PORTS = ['leases', 'segments', 'counters', 'marks'] as const;

/**
 * What `migrateStore` creates, port by port, in this order, and how it reports each. Ports
 * not listed (counters, tickets, bench, backfill) need nothing created ahead.
 */
export const MIGRATED_PORTS: readonly { readonly port: BackendPort; readonly what: string }[] = [
  { port: 'leases', what: 'leases, marks, claims' },
  { port: 'segments', what: 'segments' },
  { port: 'marks', what: 'counter marks' },
];

/** The fields of a driver's error that say what went wrong (any may be missing). */
export interface DriverFailure {
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly message?: unknown;
}

/**
 * What a driver error means for idforge: tables missing, credentials refused, the URL's
 * database missing on its server, the file read-only for this user, or none of these.
 */
export type FailureKind = 'not-migrated' | 'auth' | 'no-database' | 'read-only' | null;

/**
 * How the driver reads its URL, where that matters for showing one without its secrets
 * (url.ts). All default to false.
 */
export interface UrlRules {
  /** `scheme:PATH`, no `//`: the rest is a file system path and may hold an `@`. */
  readonly path?: boolean;
  /** A user name without a password is a secret (Redis: `redis://PASSWORD@host`). */
  readonly loneUserIsSecret?: boolean;
  /** The host part may list members, `host:port,host:port` (etcd). */
  readonly memberList?: boolean;
  /** The driver re-encodes a stray `%` in the user information instead of failing (node-postgres). */
  readonly toleratesStrayPercent?: boolean;
  /** A `\` ends the host of `scheme://host\path` (file URLs written on Windows). */
  readonly backslashEndsHost?: boolean;
}

/** What one driver error means ({@link FailureKind}); store-error.ts walks the cause chain. */
export type Classify = (failure: DriverFailure) => FailureKind;

/**
 * What a backend's adapters need to know of their own backend without loading the registry
 * (backends.ts reaches every adapter through its descriptor's `import()`, so an adapter that
 * imported the registry, or its own descriptor, would close a circle): its schemes and how its
 * driver reads a URL. Each backend folder's leaf `rules.ts` holds it, beside the backend's
 * {@link Classify}; the descriptor spreads it.
 */
export interface BackendRules {
  /** The scheme its URLs are known by in messages and results (`postgres`). */
  readonly name: string;
  /** Other schemes that mean the same backend (`postgresql`), folded by `storeScheme`. */
  readonly aliases?: readonly string[];
  /** Schemes only recognised when showing a URL (`rediss`): never opened. */
  readonly shownSchemes?: readonly string[];
  readonly url?: UrlRules;
}

/** One backend. See docs/architecture.md, "Adding a backend". */
export interface Backend extends BackendRules {
  /** The product, for docs and messages (`PostgreSQL`). */
  readonly title: string;
  /** The URL as messages suggest it: `postgres://...`, `sqlite:PATH`, `etcd://host:port`. */
  readonly form: string;
  /** The npm packages its adapters load (optional peer dependencies of @idforge/stores). */
  readonly drivers: readonly string[];
  readonly open: BackendOpeners;
  /** Why it does not open a port, where that helps (added to the refusal's message). */
  readonly refusals?: Partial<Record<BackendPort, string>>;
}

/**
 * `{ ...base, namespace }` when the caller named a namespace, else `base`: an adapter's own
 * default (or the URL's `?namespace=`) applies only when none was given.
 */
export function withNamespace<T extends object>(
  base: T,
  options: OpenStoreOptions,
): T & { namespace?: string } {
  return options.namespace === undefined ? base : { ...base, namespace: options.namespace };
}

/**
 * The options a server adapter takes from an opener's: the connect timeout (default
 * {@link CONNECT_TIMEOUT_MS}) and the namespace when one was named.
 */
export function serverOptions(options: OpenStoreOptions): {
  connectTimeoutMs: number;
  namespace?: string;
} {
  return withNamespace(
    { connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS },
    options,
  );
}

/** The file options given (create, onCreate), for the openers of a file-backed store. */
export function fileOptions(options: StoreFileOptions): StoreFileOptions {
  return {
    ...(options.create === undefined ? {} : { create: options.create }),
    ...(options.onCreate === undefined ? {} : { onCreate: options.onCreate }),
  };
}

/** The URL protocols a backend's URLs may start with: its name, aliases and shown schemes. */
export function backendProtocols(b: BackendRules): string[] {
  return [b.name, ...(b.aliases ?? []), ...(b.shownSchemes ?? [])].map((s) => `${s}:`);
}
