/**
 * The service's configuration: one table of keys, each with its default, its environment
 * variable, its command-line flag and a validator. Sources are merged defaults < config file
 * (JSON) < IDFORGE_* environment variables < flags, and every value is validated once at
 * start: an unknown key or a bad value throws {@link ConfigError} naming the key, where it came
 * from and how to fix it (the CLI exits with code 2).
 */
import { availableParallelism } from 'node:os';
import {
  backendOpens,
  DEFAULT_STORE_URL,
  sequenceKind,
  servesRole,
  storeScheme,
} from '@idforge/stores';
import type { LargeRollbackPolicy } from 'idforge/coord';
import { MAX_REQUEST_COUNT } from 'idforge/wire';
import { checkNodes } from './config-nodes.js';
import {
  bool,
  ConfigError,
  fail,
  fieldValues,
  int,
  type KeySpec,
  type LogFormat,
  type LogLevel,
  layoutList,
  layoutName,
  logFormat,
  logLevel,
  nullable,
  show,
  type TokenConfig,
  text,
  tokens,
  url,
  workerRange,
} from './config-values.js';

/** The validated configuration of `idforge serve`. */
export interface ServiceConfig {
  readonly host: string;
  readonly port: number;
  /** Lease and mark store: sqlite:, file:, postgres://, redis://, etcd://. */
  readonly store: string;
  /** Segment store (sqlite:, postgres://, mysql://) or Redis counters (redis://), or null. */
  readonly sequences: string | null;
  /** Durable marks of Redis counters (sqlite: or postgres://). */
  readonly marks: string | null;
  /** The Snowflake layout of this node. */
  readonly layout: string;
  /** Further layouts a request may choose with ?layout= (each needs its own worker ID). */
  readonly layouts: readonly string[];
  /**
   * Fixed values of node fields other than the leased one, for layouts with several
   * (twitter-2010: { datacenter: 1 }; discord: { process: 0 }); each layout takes those it has.
   */
  readonly fields: Readonly<Record<string, number>>;
  /**
   * Serve HLC IDs (idforge/hlc, GET /v1/ids/hlc) from a worker ID of layout `hlc`, and take
   * and answer the `IdForge-HLC` header (docs/hlc.md).
   */
  readonly hlc: boolean;
  /** A caller's `IdForge-HLC` further ahead of this node's clock is refused (400). */
  readonly hlcMaxDriftMs: number;
  /** Worker IDs this node may lease, [min, max]; null for the layout's whole field. */
  readonly workers: readonly [number, number] | null;
  readonly ttlMs: number;
  /**
   * A clock behind its worker ID's stored mark by up to this is waited out at start; more
   * fails with IDF_BEHIND_MARK (a clock stepped back across the restart).
   */
  readonly markToleranceMs: number;
  /** How long start waits for a free worker ID or a store that is down. */
  readonly acquireTimeoutMs: number;
  /**
   * A clock stepped back by more than the nodes wait out: `refuse` until it catches up (the
   * default), or `switch-worker`: lease another worker ID whose mark is below the clock and go
   * on (docs/coordination.md, "Large clock steps"). With `switch-worker` the nodes' clock
   * follows the wall clock back when it is more than 500 ms behind.
   */
  readonly onLargeRollback: LargeRollbackPolicy;
  /**
   * Processes serving on the one port (node:cluster), each with its own leases, marks and
   * segment buffers; `auto` in a file, flag or variable resolves to the host's available
   * parallelism. Default 1 (this process serves).
   */
  readonly processes: number;
  readonly maxCount: number;
  readonly maxSegmentSize: number;
  /** The longest lease a caller of /v1/worker-leases may ask for (its ttlMs), ms. */
  readonly leaseMaxTtlMs: number;
  /**
   * How far past the service's clock a caller of /v1/worker-leases may set a worker ID's mark
   * (reserveMarkMs, finalMarkMs), ms: a mark that far ahead keeps the ID from every node.
   */
  readonly leaseMaxMarkAheadMs: number;
  readonly tokens: readonly TokenConfig[];
  /** /healthz, /readyz, /metrics, /v1/status and the dashboard need a token too. */
  readonly protectOps: boolean;
  /** Requests per token (or per client address without one) per window; 0 turns it off. */
  readonly rateLimit: number;
  readonly rateWindowMs: number;
  readonly bodyLimit: number;
  /**
   * Longest a client may take to send one whole request, headers and body: then 408
   * IDF_REQUEST_TIMEOUT and the connection is closed (slowloris, a body trickled).
   */
  readonly requestTimeoutMs: number;
  /**
   * Longest a connection's answers may stay unread (written, not taken by the client, never
   * drained): then the connection is closed, so a client that does not read holds nothing long.
   */
  readonly writeTimeoutMs: number;
  /** Answer 503 when the event loop lags more than this. 0 turns it off. */
  readonly maxEventLoopDelayMs: number;
  readonly shutdownTimeoutMs: number;
  /**
   * At shutdown, how long the listener stays open answering 503 (Retry-After, Connection:
   * close) before it closes, unless every connection has ended sooner. 0 closes it at once.
   */
  readonly drainGraceMs: number;
  /** Warn (readyz, log) while the wall clock is this far from the nodes' monotonic clock. */
  readonly wallDivergenceWarnMs: number;
  /** Create idforge's tables in server stores at start (idempotent; SQLite always does). */
  readonly migrate: boolean;
  readonly logLevel: LogLevel;
  /** `idforge serve`'s output: JSON lines, or one human line at start (auto: on a terminal). */
  readonly logFormat: LogFormat;
}

/** Every key: its default, validator and one line of help (what `idforge serve --help` lists). */
export const CONFIG_KEYS = {
  host: { default: '127.0.0.1', parse: text, help: 'address to listen on' },
  port: { default: 8080, parse: int(0, 65535), help: 'port (0: any free port)' },
  store: {
    default: DEFAULT_STORE_URL,
    parse: url('store'),
    help: 'lease and mark store URL',
  },
  sequences: {
    default: null,
    parse: nullable(url('sequences')),
    help: 'segments (sqlite:, postgres://, mysql://) or redis:// counters; default --store',
  },
  marks: {
    default: null,
    parse: nullable(url('marks')),
    help: `durable marks of redis:// counters; default --store, else ${DEFAULT_STORE_URL}`,
  },
  layout: { default: 'default', parse: layoutName, help: 'Snowflake layout of this node' },
  layouts: {
    default: [],
    parse: layoutList,
    help: 'more layouts allowed with ?layout= (comma list)',
  },
  fields: {
    default: {},
    parse: fieldValues,
    help: 'fixed values of other node fields, NAME=V,NAME=V',
  },
  hlc: {
    default: false,
    parse: bool,
    help: 'serve HLC IDs (/v1/ids/hlc) and the IdForge-HLC header',
  },
  hlcMaxDriftMs: {
    default: 1000,
    parse: int(1, 60_000),
    help: 'refuse an IdForge-HLC this far ahead of the clock, ms',
  },
  workers: { default: null, parse: workerRange, help: 'worker IDs to lease from, N or MIN-MAX' },
  ttlMs: { default: 10_000, parse: int(100, 3_600_000), help: 'lease TTL in ms' },
  markToleranceMs: {
    default: 5000,
    parse: int(0, 3_600_000),
    help: "wait out a clock behind the worker ID's mark by up to this, ms",
  },
  acquireTimeoutMs: {
    default: 10_000,
    parse: int(0, 3_600_000),
    help: 'wait at start for a worker ID, ms',
  },
  processes: {
    default: 1,
    parse: (value, where) => {
      if (value === 'auto') return availableParallelism();
      const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
      return Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 256
        ? (n as number)
        : fail(where, 'an integer in [1, 256] or auto', value);
    },
    help: 'processes serving on the port, N or auto (one per core)',
  },
  onLargeRollback: {
    default: 'refuse',
    parse: (value, where) =>
      value === 'refuse' || value === 'switch-worker'
        ? (value as LargeRollbackPolicy)
        : fail(where, 'refuse or switch-worker', value),
    help: 'a clock stepped back past the mark: refuse, or switch-worker (another worker ID)',
  },
  maxCount: {
    default: 10_000,
    parse: int(1, MAX_REQUEST_COUNT),
    help: 'largest count of one request',
  },
  maxSegmentSize: {
    default: 1_000_000,
    parse: int(1, 2 ** 31 - 1),
    help: 'largest segment handed to a client',
  },
  leaseMaxTtlMs: {
    default: 60_000,
    parse: int(100, 86_400_000),
    help: 'longest lease TTL a /v1/worker-leases caller may ask for, ms',
  },
  leaseMaxMarkAheadMs: {
    default: 90_000,
    parse: int(100, 86_400_000),
    help: 'furthest a /v1/worker-leases caller may set a mark past the clock, ms',
  },
  tokens: { default: [], parse: tokens, help: 'bearer tokens (config file only)' },
  protectOps: {
    default: false,
    parse: bool,
    help: 'health, metrics, status and dashboard need a token',
  },
  rateLimit: { default: 0, parse: int(0, 1e9), help: 'requests per token per window (0: off)' },
  rateWindowMs: { default: 60_000, parse: int(1, 3_600_000), help: 'rate-limit window, ms' },
  bodyLimit: { default: 16_384, parse: int(1, 1 << 30), help: 'largest request body, bytes' },
  requestTimeoutMs: {
    default: 10_000,
    parse: int(100, 600_000),
    help: 'longest time to receive one request (headers and body), ms; 408 then',
  },
  writeTimeoutMs: {
    default: 30_000,
    parse: int(100, 600_000),
    help: 'longest time an answer may wait for its client to read it, ms; closed then',
  },
  maxEventLoopDelayMs: {
    default: 1000,
    parse: int(0, 60_000),
    help: 'answer 503 above this event-loop lag (0: off)',
  },
  shutdownTimeoutMs: {
    default: 10_000,
    parse: int(1, 600_000),
    help: 'longest graceful shutdown, ms',
  },
  drainGraceMs: {
    default: 1000,
    parse: int(0, 600_000),
    help: 'at shutdown, keep answering 503 this long before closing the listener, ms',
  },
  wallDivergenceWarnMs: {
    default: 20,
    parse: int(1, 86_400_000),
    help: "warn while the wall clock is this far from the nodes' clock, ms",
  },
  migrate: {
    default: false,
    parse: bool,
    help: "create idforge's tables in server stores at start",
  },
  logLevel: { default: 'info', parse: logLevel, help: 'log level' },
  logFormat: {
    default: 'auto',
    parse: logFormat,
    help: 'json lines, or pretty (one human line at start, then warnings); auto: pretty on a terminal',
  },
} satisfies Record<keyof ServiceConfig, KeySpec<unknown>>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** `ttlMs` → `IDFORGE_TTL_MS`; `ttlMs` → `--ttl-ms`. */
export const envName = (key: string): string =>
  `IDFORGE_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
export const flagName = (key: string): string =>
  `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Keys the environment may not set (lists of secrets belong in a file). */
const FILE_ONLY: readonly string[] = ['tokens'];

/** Where configuration comes from; each source is optional. */
export interface ConfigSources {
  /** The parsed config file (JSON object) and its path, for messages. */
  readonly file?: { readonly path: string; readonly values: unknown };
  /** Environment variables (only IDFORGE_* keys of the table are read). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Command-line values by key (strings as typed). */
  readonly flags?: Readonly<Partial<Record<ConfigKey, unknown>>>;
}

/**
 * The validated configuration. Throws {@link ConfigError} for an unknown key in the file, a bad
 * value from any source (naming the key and the source), or an inconsistent combination.
 * `IDFORGE_ADMIN_TOKEN` adds an admin token named `env-admin`.
 */
export function resolveConfig(sources: ConfigSources = {}): ServiceConfig {
  const out: Record<string, unknown> = {};
  // Where each value came from, so that a rule across keys names the setting as it was given.
  const origins: Record<string, string> = {};
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) out[key] = spec.default;
  const file = sources.file;
  if (file !== undefined) {
    const v = file.values;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new ConfigError(
        'config',
        `${file.path}: expected a JSON object of settings, got ${show(v)}`,
      );
    }
    for (const [key, value] of Object.entries(v)) {
      const spec = (CONFIG_KEYS as Record<string, KeySpec<unknown>>)[key];
      if (spec === undefined) {
        throw new ConfigError(
          key,
          `${file.path}: unknown key "${key}"; known keys: ${Object.keys(CONFIG_KEYS).join(', ')}`,
        );
      }
      origins[key] = `${file.path}: ${key}`;
      out[key] = spec.parse(value, origins[key]);
    }
  }
  const env = sources.env ?? {};
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const value = env[envName(key)];
    if (value === undefined || value === '' || FILE_ONLY.includes(key)) continue;
    origins[key] = envName(key);
    out[key] = spec.parse(value, envName(key));
  }
  for (const [key, value] of Object.entries(sources.flags ?? {})) {
    const spec = (CONFIG_KEYS as Record<string, KeySpec<unknown>>)[key];
    if (spec === undefined) throw new ConfigError(key, `unknown setting "${key}"`);
    if (value === undefined) continue;
    origins[key] = flagName(key);
    out[key] = spec.parse(value, flagName(key));
  }
  const admin = env.IDFORGE_ADMIN_TOKEN;
  if (admin !== undefined && admin !== '') {
    const more = tokens([{ name: 'env-admin', token: admin, admin: true }], 'IDFORGE_ADMIN_TOKEN');
    out.tokens = [...(out.tokens as TokenConfig[]), ...more];
  }
  return finish(out as unknown as ServiceConfig, origins);
}

/** Defaults that depend on other keys, and rules across keys. */
function finish(c: ServiceConfig, origins: Record<string, string>): ServiceConfig {
  let sequences = c.sequences;
  if (sequences === null && backendOpens(storeScheme(c.store), 'segments')) sequences = c.store;
  let marks = c.marks;
  if (marks === null && sequences !== null && sequenceKind(storeScheme(sequences)) === 'counters') {
    marks = servesRole('marks', storeScheme(c.store)) ? c.store : DEFAULT_STORE_URL;
  }
  const seen = new Set<string>();
  for (const t of c.tokens) {
    if (seen.has(t.token))
      throw new ConfigError(
        'tokens',
        'tokens: two tokens have the same secret; give each client its own',
      );
    seen.add(t.token);
  }
  if (c.leaseMaxMarkAheadMs < c.leaseMaxTtlMs) {
    // A node reserves its mark up to its TTL ahead: a tighter bound would refuse its renewals.
    throw new ConfigError(
      'leaseMaxMarkAheadMs',
      `leaseMaxMarkAheadMs ${c.leaseMaxMarkAheadMs} is below leaseMaxTtlMs ${c.leaseMaxTtlMs}: ` +
        "a node's renewals reserve up to its TTL ahead; raise it to at least leaseMaxTtlMs",
    );
  }
  const layouts = c.layouts.filter((l) => l !== c.layout);
  const leases = 1 + layouts.length + (c.hlc ? 1 : 0);
  if (c.workers !== null && c.workers[1] - c.workers[0] + 1 < leases) {
    // Worker IDs are one namespace per store: each layout's node, and the HLC node, leases
    // its own, so a range narrower than that can never start.
    throw new ConfigError(
      'workers',
      `workers ${c.workers[0]}-${c.workers[1]} holds ${c.workers[1] - c.workers[0] + 1} worker ` +
        `ID(s), but this node leases ${leases} (one per layout${c.hlc ? ' and one for HLC IDs' : ''}): widen the range`,
    );
  }
  if (c.hlc && c.hlcMaxDriftMs * 3 > c.ttlMs) {
    // An HLC runs up to the drift ahead of the clock, and each tick it issues must lie inside
    // the mark reservation the lease renewal keeps ahead of the clock (at least 2/3 of ttlMs).
    throw new ConfigError(
      'hlcMaxDriftMs',
      `hlcMaxDriftMs ${c.hlcMaxDriftMs} must be at most a third of ttlMs (${c.ttlMs}): lower it or raise ttlMs`,
    );
  }
  checkNodes({ ...c, layouts }, origins);
  return { ...c, sequences, marks, layouts };
}
