/**
 * `/v1/worker-leases`: the LeaseStore port (idforge/coord) over HTTP, for Snowflake nodes that
 * run in other processes without the store's credentials (`httpLeaseStore` of idforge/client).
 * Tokens of scope `lease` only. The service decides nothing the store decides: each call goes to
 * the service's own lease store (the one opened from `--store`), whose answer is passed on.
 *
 * Holder identity: the store records the caller's instance ID suffixed with `@` and the token's
 * name, so a lease shows who took it (`idforge leases`, `/v1/leases`), and, since the store
 * compares that whole ID atomically, a token can renew or release only the leases it took. The
 * caller sees its own instance IDs without the suffix.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lease, LeaseRecord, LeaseStore } from 'idforge/coord';
import type { RouteDeps } from '../../deps.js';
import { badRequest, HttpError, ServiceCode } from '../errors.js';
import {
  acquireLeaseSchema,
  listWorkerLeasesSchema,
  readMarkSchema,
  releaseLeaseSchema,
  renewLeaseSchema,
  storeClockSchema,
} from '../lease-schemas.js';
import { routePlugin } from '../plugins/plugin.js';
import { strictIntegers } from '../strict-integers.js';

const lease = { access: 'lease' as const };

/** The widest range one request may ask for. */
const MAX_RANGE = 65_536;

/** The instance ID the store holds for `id` taken with this request's token. */
export function storedInstanceId(req: FastifyRequest, id: string): string {
  return `${id}@${req.principal?.name ?? ''}`;
}

/** A stored instance ID split: the caller's, and the token (null: not taken through a service). */
export function holderOf(stored: string): { instanceId: string; token: string | null } {
  const at = stored.indexOf('@');
  return at < 0
    ? { instanceId: stored, token: null }
    : { instanceId: stored.slice(0, at), token: stored.slice(at + 1) };
}

/** The caller's view of a stored ID: its own without the suffix, another's as stored. */
const shown = (req: FastifyRequest, stored: string) => {
  const own = `@${req.principal?.name ?? ''}`;
  return stored.endsWith(own) && stored.indexOf('@') === stored.length - own.length
    ? stored.slice(0, -own.length)
    : stored;
};

/**
 * Refuses a mark so far ahead that it would keep the worker ID from every node for long (a node
 * starting on it waits for its clock to pass the mark, or fails IDF_BEHIND_MARK), and a lease
 * so long that one token could hold worker IDs for that long: both bounds are the service's
 * settings, not the caller's.
 */
function checkBounds(
  { config, now = Date.now }: RouteDeps,
  ttlMs: number | null,
  markMs: number | null | undefined,
  what: string,
): void {
  const { leaseMaxTtlMs, leaseMaxMarkAheadMs } = config;
  if (ttlMs !== null && ttlMs > leaseMaxTtlMs) {
    throw badRequest(
      `ttlMs ${ttlMs} is more than leaseMaxTtlMs (${leaseMaxTtlMs}): ask for a shorter lease ` +
        '(a node renews every third of it), or raise the setting leaseMaxTtlMs',
    );
  }
  const t = now();
  if (markMs != null && markMs > t + leaseMaxMarkAheadMs) {
    throw badRequest(
      `${what} ${markMs} is more than leaseMaxMarkAheadMs (${leaseMaxMarkAheadMs}) ms past the ` +
        `service clock (${t}): check the node's clock, or raise the setting leaseMaxMarkAheadMs`,
    );
  }
}

/** Throws 403 unless the request's token may lease worker IDs in [min, max]. */
function checkTokenRange(req: FastifyRequest, min: number, max: number): void {
  const p = req.principal;
  const w = p?.workers ?? null;
  if (p != null && w !== null && (min < w[0] || max > w[1])) {
    throw new HttpError(
      ServiceCode.FORBIDDEN,
      `token "${p.name}" may lease worker IDs ${w[0]}-${w[1]} only, asked ${min}-${max}: ` +
        'ask within its range, or widen the token\'s "workers"',
    );
  }
}

/**
 * Throws 403 when the request's token holds more than its `maxLeases` live leases (`extra`: the
 * lease this request is about to take). Counted in the store, which every service process and
 * node shares, by the token's name in the holder's instance ID.
 */
async function checkTokenCount(req: FastifyRequest, store: LeaseStore, extra: number) {
  const p = req.principal;
  const max = p?.maxLeases ?? null;
  if (p == null || max === null) return;
  const held = (await store.list()).filter((r) => holderOf(r.instanceId).token === p.name).length;
  if (held + extra > max) {
    throw new HttpError(
      ServiceCode.FORBIDDEN,
      `token "${p.name}" holds ${held - 1 + extra} leases, its maxLeases (${max}): release one ` +
        'first, or raise the token\'s "maxLeases"',
    );
  }
}

interface AcquireBody {
  min: number;
  max: number;
  ttlMs: number;
  instanceId: string;
  host: string;
  pid: number;
  startedAtMs: number;
  clockMs: number;
  reserveMarkMs?: number;
}

/** Refuses what an acquire may not ask for, before the store sees it. */
function checkAcquire(req: FastifyRequest<{ Body: AcquireBody }>, deps: RouteDeps): void {
  const b = req.body;
  if (b.min > b.max) throw badRequest(`expected min <= max, got ${b.min} > ${b.max}`);
  if (b.max - b.min >= MAX_RANGE) {
    throw badRequest(`expected a range of at most ${MAX_RANGE} worker IDs, got ${b.min}..${b.max}`);
  }
  checkBounds(deps, b.ttlMs, b.reserveMarkMs, 'reserveMarkMs');
  checkTokenRange(req, b.min, b.max);
}

function acquireRoute(app: FastifyInstance, deps: RouteDeps): void {
  const { leaseStore } = deps;
  app.post<{ Body: AcquireBody }>(
    '/v1/worker-leases',
    {
      schema: acquireLeaseSchema,
      config: lease,
      preValidation: strictIntegers(acquireLeaseSchema),
    },
    async (req) => {
      checkAcquire(req, deps);
      await checkTokenCount(req, leaseStore, 1);
      const b = req.body;
      const owner = {
        instanceId: storedInstanceId(req, b.instanceId),
        host: b.host,
        pid: b.pid,
        startedAtMs: b.startedAtMs,
      };
      const granted = await leaseStore.acquire({
        min: b.min,
        max: b.max,
        ttlMs: b.ttlMs,
        owner,
        clockMs: b.clockMs,
        reserveMarkMs: b.reserveMarkMs ?? 0,
      });
      if (granted !== null) await keepWithinCount(req, leaseStore, granted);
      return { lease: granted === null ? null : { ...granted, instanceId: b.instanceId } };
    },
  );
}

/**
 * Counts again once `granted` is in the store: grants of one token racing through several
 * processes all passed the count before any was stored. Over the limit, the grant is given back
 * with the mark it found (the store keeps at least that) and the request refused.
 */
async function keepWithinCount(req: FastifyRequest, store: LeaseStore, granted: Lease) {
  try {
    await checkTokenCount(req, store, 0);
  } catch (error) {
    await store.release(granted, granted.previousMarkMs);
    throw error;
  }
}

interface RenewBody {
  instanceId: string;
  ttlMs: number;
  reserveMarkMs: number;
  clockMs: number;
  lastIssuedMs?: number | null;
}

/** The port's Lease for a worker ID and a caller's instance (the stores compare only those). */
const leaseOf = (req: FastifyRequest, workerId: number, instanceId: string): Lease => ({
  workerId,
  instanceId: storedInstanceId(req, instanceId),
  previousMarkMs: null,
  markMs: 0,
});

function renewRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { leaseStore } = deps;
  app.post<{ Params: { workerId: number }; Body: RenewBody }>(
    '/v1/worker-leases/:workerId/renew',
    { schema: renewLeaseSchema, config: lease, preValidation: strictIntegers(renewLeaseSchema) },
    async (req) => {
      const b = req.body;
      checkBounds(deps, b.ttlMs, b.reserveMarkMs, 'reserveMarkMs');
      const result = await leaseStore.renew(leaseOf(req, req.params.workerId, b.instanceId), {
        ttlMs: b.ttlMs,
        reserveMarkMs: b.reserveMarkMs,
        clockMs: b.clockMs,
        lastIssuedMs: b.lastIssuedMs ?? null,
      });
      return { held: result.held, claimants: result.claimants.map((c) => shown(req, c)) };
    },
  );
  app.post<{
    Params: { workerId: number };
    Body: { instanceId: string; finalMarkMs?: number | null };
  }>(
    '/v1/worker-leases/:workerId/release',
    {
      schema: releaseLeaseSchema,
      config: lease,
      preValidation: strictIntegers(releaseLeaseSchema),
    },
    async (req) => {
      const { instanceId, finalMarkMs = null } = req.body;
      checkBounds(deps, null, finalMarkMs, 'finalMarkMs');
      await leaseStore.release(leaseOf(req, req.params.workerId, instanceId), finalMarkMs);
      return { released: true };
    },
  );
}

/** A lease record as the lease routes and `/v1/leases` show it: the holder's token apart. */
export function recordJson(r: LeaseRecord, instanceId: (stored: string) => string) {
  return { ...r, instanceId: instanceId(r.instanceId), token: holderOf(r.instanceId).token };
}

function readRoutes(app: FastifyInstance, { leaseStore }: RouteDeps): void {
  app.get('/v1/worker-leases', { schema: listWorkerLeasesSchema, config: lease }, async (req) => ({
    leases: (await leaseStore.list()).map((r) => recordJson(r, (s) => shown(req, s))),
  }));
  app.get<{ Params: { workerId: number } }>(
    '/v1/worker-leases/:workerId/mark',
    { schema: readMarkSchema, config: lease, preValidation: strictIntegers(readMarkSchema) },
    async (req) => ({
      workerId: req.params.workerId,
      markMs: await leaseStore.readMark(req.params.workerId),
    }),
  );
  app.get('/v1/worker-leases/clock', { schema: storeClockSchema, config: lease }, async () => ({
    serverTimeMs: await leaseStore.serverTimeMs(),
  }));
}

export const leaseRoutes = routePlugin('leases', async (app: FastifyInstance, deps: RouteDeps) => {
  acquireRoute(app, deps);
  renewRoutes(app, deps);
  readRoutes(app, deps);
});
