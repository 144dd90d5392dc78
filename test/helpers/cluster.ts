// Several real `idforge serve` processes on one shared store: the stores and namespaces of a
// run, starting the processes (every one killed at the end), their worker IDs, readiness and
// leases, and a proxy that cuts one off from its store. The load they serve: cluster-load.ts.
import { connect, createServer, type Socket } from 'node:net';
import { after } from 'node:test';
import { migrateStore, openSegmentStore } from '../../packages/stores/src/index.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS, type ServerName } from './namespaces.js';
import { type ServiceProc, spawnService } from './service.js';
import { serviceSkip } from './services.js';
import { listenLocal } from './tcp.js';
import { waitFor } from './wait.js';

/** The admin token every cluster node accepts (IDFORGE_ADMIN_TOKEN). */
export const ADMIN_TOKEN = 'cluster-test-admin-0123456789abcdef';

/** Migrates the lease and segment stores and creates `tag` (the test process does it once). */
export async function prepareStores(
  lease: string,
  segments: string,
  tag: string,
  step: number,
): Promise<void> {
  await migrateStore(lease);
  if (segments !== lease) await migrateStore(segments);
  const store = await openSegmentStore(segments);
  try {
    await store.createTag(tag, { step });
  } finally {
    await store.close();
  }
}

/** Processes started by a test, every one SIGKILLed by {@link Cluster.killAll}. */
export class Cluster {
  readonly procs: ServiceProc[] = [];
  readonly #base: readonly string[];

  /** `base`: the flags every node gets (stores, TTL). */
  constructor(base: readonly string[]) {
    this.#base = base;
  }

  /** Starts a node with the base flags and `extra`; resolve `ready` before using it. */
  start(extra: readonly string[] = []): ServiceProc {
    const p = spawnService([...this.#base, ...extra], {
      IDFORGE_ADMIN_TOKEN: ADMIN_TOKEN,
      IDFORGE_LOG_LEVEL: 'info',
    });
    this.procs.push(p);
    return p;
  }

  /** Starts `n` nodes and waits until each listens (each waited for its lease and mark). */
  async startMany(n: number, extra: readonly string[] = []): Promise<ServiceProc[]> {
    const started = Array.from({ length: n }, () => this.start(extra));
    await Promise.all(started.map((p) => p.ready));
    return started;
  }

  /** SIGKILLs every process still running (a stopped one too) and waits for their exit. */
  async killAll(): Promise<void> {
    for (const p of this.procs) if (alive(p)) p.child.kill('SIGKILL');
    await Promise.all(this.procs.map((p) => p.exited));
  }
}

export const alive = (p: ServiceProc): boolean =>
  p.child.exitCode === null && p.child.signalCode === null;

/** The worker ID a node logged when it leased one (the latest, after a re-acquisition). */
export function loggedWorker(p: ServiceProc): number | null {
  let worker: number | null = null;
  for (const l of p.logs) {
    const m = /worker ID (\d+) \(node of layout/.exec(String(l.msg));
    if (m !== null) worker = Number(m[1]);
  }
  return worker;
}

/** GET /readyz: its status and body. */
export async function readyz(
  url: string,
): Promise<{ status: number; ready: boolean; failing: string[] }> {
  const r = await fetch(`${url}/readyz`);
  const text = await r.text();
  const body = JSON.parse(text) as { ready?: boolean; failing?: string[] };
  // Anything but a readiness report (an error answer) is named whole.
  return { status: r.status, ready: body.ready === true, failing: body.failing ?? [text] };
}

/** Polls /readyz until it answers `status`; rejects after `ms` naming the last answer. */
export async function waitReadyz(url: string, status: number, ms = 20_000): Promise<string[]> {
  let last = '';
  const answer = await waitFor(
    async () => {
      const r = await readyz(url).catch((e: Error) => ({ status: 0, failing: [e.message] }));
      last = `${r.status} ${r.failing.join('; ')}`;
      return r.status === status && r;
    },
    () => `/readyz of ${url} to answer ${status}: ${last}`,
    { ms, everyMs: 20 },
  );
  return answer.failing;
}

/** One lease as the admin route lists it. */
export interface LeaseRow {
  readonly workerId: number;
  readonly instanceId: string;
  readonly pid: number;
  readonly expiresAtMs: number;
  readonly markMs: number;
}

/** GET /v1/leases of `url` (the admin token): every live lease of the store. */
export async function leases(url: string): Promise<LeaseRow[]> {
  const r = await fetch(`${url}/v1/leases`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (r.status !== 200) throw new Error(`/v1/leases answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { leases: LeaseRow[] }).leases;
}

/**
 * Waits until the store (read through `url`) lists `pid` as the live holder of `workerId`.
 * Polled, not read once: only live leases are listed, and on a starved machine a holder's
 * short lease can lapse between two renewals before it takes the ID again.
 */
export async function waitHolder(url: string, workerId: number, pid: number, ms = 20_000) {
  let seen: LeaseRow | undefined;
  await waitFor(
    async () => {
      seen = (await leases(url)).find((l) => l.workerId === workerId);
      return seen?.pid === pid;
    },
    () =>
      `the store to list pid ${pid} for worker ID ${workerId}; it lists ` +
      (seen === undefined ? 'no live lease' : `pid ${seen.pid}`),
    { ms, everyMs: 50 },
  );
}

/** Waits until node `p` serves and its logged worker ID is known; returns that ID. */
export async function workerOfNode(p: ServiceProc): Promise<number> {
  await p.ready;
  await waitFor(() => loggedWorker(p) !== null, 'the node to log its worker ID', 5000);
  return loggedWorker(p)!;
}

/**
 * A TCP proxy to host:port whose link can be cut (nothing passes either way, nothing is
 * refused: a black hole, as a network partition looks to both ends) and restored (what was
 * held passes, as TCP delivers it once a partition heals). Connections opened while cut reach
 * the server only after restore().
 */
export async function partitionProxy(
  host: string,
  port: number,
): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let cut = false;
  let held: (() => void)[] = [];
  const later = (f: () => void) => (cut ? held.push(f) : f());
  const link = (down: Socket) => {
    const up = connect(port, host);
    sockets.add(up);
    for (const [from, to] of [
      [down, up],
      [up, down],
    ] as const) {
      from.on('data', (chunk) => {
        if (!to.destroyed) to.write(chunk);
      });
      from.on('close', () => later(() => to.destroy()));
      from.on('error', () => {});
      if (cut) from.pause();
    }
    if (!cut) down.resume();
  };
  const server = createServer((down) => {
    sockets.add(down);
    down.pause();
    down.on('error', () => {});
    later(() => link(down));
  });
  return {
    port: await listenLocal(server),
    cut() {
      cut = true;
      for (const s of sockets) s.pause();
    },
    restore() {
      cut = false;
      for (const s of sockets) if (!s.destroyed) s.resume();
      const run = held;
      held = [];
      for (const f of run) f();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A lease backend and the segment backend paired with it. */
export interface Pairing {
  readonly lease: ServerName;
  readonly segments: 'postgres' | 'mysql';
}

/** Postgres leases with postgres segments, redis with mysql, etcd with postgres. */
export const PAIRINGS: readonly Pairing[] = [
  { lease: 'postgres', segments: 'postgres' },
  { lease: 'redis', segments: 'mysql' },
  { lease: 'etcd', segments: 'postgres' },
];

/** The skip reason of a pairing (a server not reachable), or false. */
export async function pairingSkip(p: Pairing): Promise<string | false> {
  return (
    (await serviceSkip(p.lease, SERVERS[p.lease].host, SERVERS[p.lease].port)) ||
    (await serviceSkip(p.segments, SERVERS[p.segments].host, SERVERS[p.segments].port))
  );
}

/**
 * The pairing with `lease` leases (PAIRINGS), its skip reason, and fresh namespaces for it that
 * are dropped after the calling file or describe(): what a suite over one pairing starts with.
 */
export async function pairingSuite(lease: Pairing['lease']) {
  const pairing = PAIRINGS.find((p) => p.lease === lease);
  if (pairing === undefined) throw new Error(`no pairing with ${lease} leases in PAIRINGS`);
  const namespaces = new Namespaces();
  after(() => namespaces.drop());
  return { pairing, namespaces, skip: await pairingSkip(pairing) };
}

/** Fresh namespaced store URLs per test, all dropped by {@link Namespaces.drop}. */
export class Namespaces {
  readonly #urls: { server: ServerName; url: string }[] = [];

  /** A lease URL and a segment URL for `p` (one URL when both live on one server). */
  stores(p: Pairing, tag: string): { lease: string; segments: string } {
    const lease = this.fresh(p.lease, tag);
    const segments = p.segments === p.lease ? lease : this.fresh(p.segments, tag);
    return { lease, segments };
  }

  fresh(server: ServerName, tag: string): string {
    const url = freshNamespaceUrl(server, tag);
    this.#urls.push({ server, url });
    return url;
  }

  async drop(): Promise<void> {
    for (const server of new Set(this.#urls.map((u) => u.server))) {
      const urls = this.#urls.filter((u) => u.server === server).map((u) => u.url);
      await dropNamespaces(server, urls);
    }
  }
}
