/**
 * What the routes are given: the open ports and state of one service (built by server.ts or a
 * test), and the request fields the app's hooks set. Types only; the plugins and the route plugins
 * both import from here, so neither imports the other's types.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { LeaseStore, SnowflakeNode } from 'idforge/coord';
import type { ClusterView } from './cluster/cluster-view.js';
import type { ServiceConfig } from './config/config.js';
import type { ClockWatch } from './domain/clock-watch.js';
import type { GeneratedIds } from './domain/generated.js';
import type { ServiceHlc } from './domain/hlc.js';
import type { SequenceRegistry } from './domain/sequences.js';
import type { Principal } from './http/auth.js';
import type { EventLog } from './metrics/events.js';
import type { IssuedIds } from './metrics/issued.js';
import type { ServiceMetrics } from './metrics/metrics.js';

/** Who this process is, for /v1/status and logs. */
export interface ServiceIdentity {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAtMs: number;
  readonly version: string;
  /** The lease store's and the segment store's addresses, credentials removed. */
  readonly store: string;
  readonly sequences: string | null;
}

/** Everything the routes use, opened by the caller (server.ts or a test). */
export interface ServiceDeps {
  readonly config: ServiceConfig;
  /** Snowflake nodes by layout name; the first is the node's own layout. */
  readonly nodes: ReadonlyMap<string, SnowflakeNode>;
  /**
   * With `config.hlc`: the HLC whose factory built the node `nodes.get('hlc')`, and which
   * takes and answers the IdForge-HLC header. Default none (HLC IDs not served).
   */
  readonly hlc?: ServiceHlc;
  readonly leaseStore: LeaseStore;
  readonly sequences: SequenceRegistry;
  readonly events: EventLog;
  readonly metrics: ServiceMetrics;
  readonly identity: ServiceIdentity;
  /** fastify's logger (a pino instance). Default: none. */
  readonly logger?: FastifyBaseLogger;
  /** Unix ms. Default Date.now. */
  readonly now?: () => number;
  /** The wall clock against the nodes' clock (/readyz, /metrics, /v1/status). Default none. */
  readonly clockWatch?: ClockWatch;
  /**
   * One process of `--processes N`: /metrics, /readyz and /v1/status speak for every process
   * of the node through it (cluster-view.ts). Default none: this process is the node.
   */
  readonly cluster?: ClusterView;
}

/**
 * Who may call a route: `ids` and `lease` (a token of that scope when tokens exist), `ops`
 * (open unless protectOps), `admin`.
 */
export type Access = 'ids' | 'lease' | 'ops' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Who may call the route (set by the route's first hook). */
    access: Access;
  }
  interface FastifyContextConfig {
    access?: Access;
    /**
     * A GET that hands out IDs or numbers: its HEAD answers 405 (a HEAD would mint, count and
     * consume a rate-limit request for an answer whose body it drops).
     */
    mints?: boolean;
  }
}

/**
 * What each route plugin receives: the deps, the app's count of the IDs it issued, and its
 * generators of the schemes made without a node.
 */
export type RouteDeps = ServiceDeps & {
  readonly issued: IssuedIds;
  readonly generated: GeneratedIds;
};
