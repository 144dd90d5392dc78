/**
 * The answers of the service's lease routes (`/v1/worker-leases`, docs/service.md), checked
 * before the lease store hands anything of them to a node: a body that breaks the contract is
 * refused whole (`fail` throws `ServiceResponseError`), since a worker ID or a mark taken on
 * trust could make two nodes share a worker ID.
 */
import type { Lease, LeaseRecord, RenewResult } from '../coord/ports.js';

type Fail = (reason: string) => never;
type Body = Readonly<Record<string, unknown>>;

function object(value: unknown, what: string, fail: Fail): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`${what} is ${JSON.stringify(value) ?? 'missing'}, not an object`);
  }
  return value as Body;
}

function int(b: Body, key: string, fail: Fail): number {
  const v = b[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    fail(`"${key}" is ${JSON.stringify(v) ?? 'missing'}, not an integer >= 0`);
  }
  return v as number;
}

function time(b: Body, key: string, fail: Fail): number {
  const v = b[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    fail(`"${key}" is ${JSON.stringify(v) ?? 'missing'}, not a time in ms`);
  }
  return v as number;
}

const maybeTime = (b: Body, key: string, fail: Fail): number | null =>
  b[key] === null ? null : time(b, key, fail);

function text(b: Body, key: string, fail: Fail): string {
  const v = b[key];
  if (typeof v !== 'string') fail(`"${key}" is ${JSON.stringify(v) ?? 'missing'}, not a string`);
  return v as string;
}

/** `{"lease": {...} | null}`: a grant in [min, max] to `instanceId`, or none. */
export function leaseParser(min: number, max: number, instanceId: string) {
  return (body: unknown, fail: Fail): Lease | null => {
    const l = object(body, 'the body', fail).lease;
    if (l === null) return null;
    const b = object(l, '"lease"', fail);
    const workerId = int(b, 'workerId', fail);
    if (workerId < min || workerId > max) fail(`worker ID ${workerId} is outside ${min}..${max}`);
    if (b.instanceId !== instanceId) fail(`"instanceId" is not the one asked for`);
    return {
      workerId,
      instanceId,
      previousMarkMs: maybeTime(b, 'previousMarkMs', fail),
      markMs: time(b, 'markMs', fail),
    };
  };
}

/** `{"held": boolean, "claimants": [string]}`. */
export function renewParser(body: unknown, fail: Fail): RenewResult {
  const b = object(body, 'the body', fail);
  if (typeof b.held !== 'boolean') fail(`"held" is ${JSON.stringify(b.held)}, not a boolean`);
  const c = b.claimants;
  if (!Array.isArray(c) || !c.every((x) => typeof x === 'string')) {
    fail('"claimants" is not a list of instance IDs');
  }
  return { held: b.held as boolean, claimants: c as string[] };
}

/** `{"leases": [...]}`, ordered by worker ID. */
export function listParser(body: unknown, fail: Fail): LeaseRecord[] {
  const list = object(body, 'the body', fail).leases;
  if (!Array.isArray(list)) fail('"leases" is not a list');
  return (list as unknown[]).map((item, i) => {
    const b = object(item, `leases[${i}]`, fail);
    return {
      workerId: int(b, 'workerId', fail),
      instanceId: text(b, 'instanceId', fail),
      host: text(b, 'host', fail),
      pid: int(b, 'pid', fail),
      startedAtMs: time(b, 'startedAtMs', fail),
      expiresAtMs: time(b, 'expiresAtMs', fail),
      markMs: maybeTime(b, 'markMs', fail),
      lastIssuedMs: maybeTime(b, 'lastIssuedMs', fail),
      clockMs: maybeTime(b, 'clockMs', fail),
      storeClockMs: maybeTime(b, 'storeClockMs', fail),
    };
  });
}

/** `{"workerId": n, "markMs": ms | null}` for the worker ID asked about. */
export function markParser(workerId: number) {
  return (body: unknown, fail: Fail): number | null => {
    const b = object(body, 'the body', fail);
    if (b.workerId !== workerId) fail(`"workerId" is not ${workerId}`);
    return maybeTime(b, 'markMs', fail);
  };
}

/** `{"serverTimeMs": ms | null}`. */
export function clockParser(body: unknown, fail: Fail): number | null {
  return maybeTime(object(body, 'the body', fail), 'serverTimeMs', fail);
}
