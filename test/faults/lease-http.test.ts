// test-runner: heavy (server processes under full load; scripts/run-tests.mjs)
// Worker-ID leases over HTTP, on real processes: 4 nodes lease through `idforge serve`
// (httpLeaseStore) and 1 leases on PostgreSQL directly, all issuing, while the service is
// killed (SIGKILL, then restarted on its port) or cut off by the partition proxy. Each proxied
// node must stop issuing before its lease's expiry in the store and say why; a node started
// on the store during the outage takes a worker ID whose lease expired and issues under it;
// when the service is back, the proxied nodes lease again; no ID is issued twice. The negative
// control runs the kill with unfenced proxied nodes (a bare generator under the first worker
// ID they leased): they issue through the outage, alongside the node that took their ID.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { migrateStore, openLeaseStore } from '../../packages/stores/src/index.js';
import { tsEntry } from '../helpers/bundle.js';
import { partitionProxy } from '../helpers/cluster.js';
import { eachLine } from '../helpers/lines.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { duplicates } from '../helpers/procs.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { serviceSkip } from '../helpers/services.js';
import { closedPort } from '../helpers/tcp.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const skip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
const fixture = fileURLToPath(new URL('./fixtures/http-node-proc.ts', import.meta.url));
const TOKEN = 'fault-lease-token-0123456789';
const TTL = 2000;
const layout = getLayout('default');
const urls: string[] = [];
const dir = tempDir('idforge-lease-http-');
after(async () => {
  dir.remove();
  if (urls.length > 0) await dropNamespaces('postgres', urls);
});

interface Proc {
  readonly child: ChildProcess;
  readonly ids: bigint[];
  /** [kind, code, unixMs, workerId] of every R, E and A line. */
  readonly events: { kind: string; code: string; at: number; workerId: number | null }[];
  readonly ready: Promise<number>;
  stats: Record<string, unknown> | null;
  readonly exited: Promise<unknown>;
}

function startProc(config: Record<string, unknown>): Proc {
  const child = spawn(process.execPath, [...tsEntry(fixture), JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let onReady!: (w: number) => void;
  let onFail!: (e: Error) => void;
  const ready = new Promise<number>((res, rej) => {
    onReady = res;
    onFail = rej;
  });
  ready.catch(() => undefined);
  const p: Proc = {
    child,
    ids: [],
    events: [],
    ready,
    stats: null,
    exited: new Promise((res) => child.on('close', res)).then(() => onFail(new Error('exited'))),
  };
  eachLine(child.stdout!, (line) => {
    const [kind, a, b] = line.split(' ');
    if (kind === 'I') for (const s of line.slice(2).split(' ')) p.ids.push(BigInt(s));
    else if (kind === 'S') p.stats = JSON.parse(line.slice(2));
    else if (kind === 'X') onFail(new Error(line));
    else if (kind === 'R' || kind === 'A') {
      p.events.push({ kind, code: '', at: Number(b), workerId: Number(a) });
      if (kind === 'R') onReady(Number(a));
    } else if (kind === 'E') p.events.push({ kind, code: a!, at: Number(b), workerId: null });
  });
  return p;
}

/** SIGTERM: the process prints its counters, releases its lease and exits. */
async function stop(p: Proc): Promise<void> {
  p.child.kill('SIGTERM');
  await p.exited;
}

function service(store: string, port: number): ServiceProc {
  const config = join(dir.dir, 'service.json');
  writeFileSync(
    config,
    JSON.stringify({ tokens: [{ name: 'fn', token: TOKEN, scopes: ['lease'] }] }),
  );
  const args = [
    '--config',
    config,
    '--store',
    store,
    '--workers',
    '100-103',
    '--ttl-ms',
    String(TTL),
  ];
  return spawnService([...args, '--port', String(port)], { IDFORGE_LOG_LEVEL: 'info' });
}

type Outage = 'kill' | 'partition';

interface Run {
  readonly fenceMs: number[];
  /** The code each proxied node first refused with after the outage began. */
  readonly fenceCodes: string[];
  readonly recoverMs: number[];
  readonly dups: number;
  readonly issued: number;
  readonly lastBeforeExpiry: number[];
  readonly refusals: Record<string, number>;
  readonly requests: number;
}

/** Waits until `p` issues again after refusals, after `since` (unix ms). */
const issuesAgain = (p: Proc, since: number, what: string) =>
  waitFor(() => p.events.some((e) => e.kind === 'A' && e.at >= since), what, 15_000);

/**
 * The latest expiry the store gave each proxied lease (instance `…@fn`), polled from the
 * outage on until stop(): a renewal in flight at the cut may still land, and no renewal lands
 * once a lease has expired, so the largest value seen is the lease's expiry.
 */
function watchExpiry(store: LeaseStore) {
  const latest = new Map<number, number>();
  let running = true;
  let failed: unknown = null;
  const loop = (async () => {
    while (running && failed === null) {
      for (const l of await store.list()) {
        if (!l.instanceId.endsWith('@fn')) continue;
        latest.set(l.workerId, Math.max(l.expiresAtMs, latest.get(l.workerId) ?? 0));
      }
      await sleep(20);
    }
  })().catch((e: unknown) => {
    failed = e;
  });
  return {
    latest,
    async stop() {
      running = false;
      await loop;
      if (failed !== null) throw failed;
    },
  };
}

async function scenario(outage: Outage, unfenced: boolean): Promise<Run> {
  const url = freshNamespaceUrl('postgres', 'lh');
  urls.push(url);
  await migrateStore(url);
  const port = await closedPort();
  let svc = service(url, port);
  const proxy = await partitionProxy('127.0.0.1', port);
  const base =
    outage === 'partition' ? `http://127.0.0.1:${proxy.port}` : `http://127.0.0.1:${port}`;
  const store = await openLeaseStore(url);
  const procs: Proc[] = [];
  try {
    await svc.ready;
    const direct = startProc({ store: url, workers: [4, 4], ttlMs: TTL });
    procs.push(direct);
    // Their first lease may wait on a service still warming up on a busy machine: the start
    // is not under test, so it has the taker's bound.
    const proxied = Array.from({ length: 4 }, () =>
      startProc({
        urls: [base],
        token: TOKEN,
        workers: [0, 3],
        ttlMs: TTL,
        unfenced,
        acquireTimeoutMs: 10_000,
      }),
    );
    procs.push(...proxied);
    await Promise.all(procs.map((p) => p.ready));
    await waitFor(() => procs.every((p) => p.ids.length > 500), 'every node issuing');
    // The outage: a renewal in flight may still land; the expiry is read once none can.
    const cutAt = Date.now();
    if (outage === 'kill') svc.child.kill('SIGKILL');
    else proxy.cut();
    if (outage === 'kill') await svc.exited;
    // A node on the store takes a worker ID whose lease expired, and issues under it.
    const taker = startProc({ store: url, workers: [0, 3], ttlMs: TTL, acquireTimeoutMs: 10_000 });
    procs.push(taker);
    const expiry = watchExpiry(store);
    await waitFor(
      () => proxied.every((p) => p.events.some((e) => e.kind === 'E')) || unfenced,
      'every proxied node fenced',
      10_000,
    );
    await taker.ready;
    await waitFor(() => taker.ids.length > 1000, 'the taker issuing');
    await stop(taker);
    await expiry.stop();
    // Everything each proxied node issued before the service is back: under its first lease.
    const counts = proxied.map((p) => p.ids.length);
    const restoredAt = Date.now();
    if (outage === 'kill') {
      svc = service(url, port);
      await svc.ready;
    } else proxy.restore();
    if (!unfenced) {
      await Promise.all(
        proxied.map((p, i) => issuesAgain(p, restoredAt, `proxied node ${i} again`)),
      );
    }
    await Promise.all(procs.filter((p) => p !== taker).map(stop));
    const fenceMs = proxied.map(
      (p) => (p.events.find((e) => e.kind === 'E' && e.at >= cutAt)?.at ?? Number.NaN) - cutAt,
    );
    const fenceCodes = proxied.map(
      (p) => p.events.find((e) => e.kind === 'E' && e.at >= cutAt)?.code ?? '',
    );
    const recoverMs = proxied.map(
      (p) =>
        (p.events.find((e) => e.kind === 'A' && e.at >= restoredAt)?.at ?? Number.NaN) - restoredAt,
    );
    // The last ID each proxied node issued under its first worker ID, against that lease's expiry.
    const lastBeforeExpiry = proxied.map((p, i) => {
      const w = p.events[0]!.workerId!;
      // A node's IDs increase: the last under `w` before the service came back is the one.
      let lastMs = Number.NaN;
      for (let k = counts[i]! - 1; k >= 0 && Number.isNaN(lastMs); k--) {
        const d = decompose(layout, p.ids[k]!);
        if (Number(d.fields.node) === w) lastMs = d.unixMs;
      }
      return (expiry.latest.get(w) ?? Number.NaN) - (lastMs + layout.unitMs);
    });
    const refusals: Record<string, number> = {};
    let requests = 0;
    for (const p of proxied) {
      const s = p.stats as {
        refusals: Record<string, number>;
        servers: { requests: number }[];
      } | null;
      for (const [c, n] of Object.entries(s?.refusals ?? {})) refusals[c] = (refusals[c] ?? 0) + n;
      requests += s?.servers.reduce((a, b) => a + b.requests, 0) ?? 0;
    }
    const all = procs.flatMap((p) => p.ids);
    return {
      fenceMs,
      fenceCodes,
      recoverMs,
      dups: duplicates(all),
      issued: all.length,
      lastBeforeExpiry,
      refusals,
      requests,
    };
  } finally {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    svc.child.kill('SIGKILL');
    await svc.exited;
    await proxy.close();
    await store.close();
  }
}

describe('leases over HTTP: the service killed or cut off (real processes)', { skip }, () => {
  for (const outage of ['kill', 'partition'] as const) {
    test(`${outage}: proxied nodes fence before their lease expires, lease again, 0 duplicates`, async () => {
      const r = await scenario(outage, false);
      console.log(`# lease-http ${outage}: ${JSON.stringify(r)}`);
      assert.equal(r.dups, 0, 'no ID issued twice');
      for (const [i, ms] of r.fenceMs.entries())
        assert.ok(ms >= 0 && ms < TTL, `node ${i} fenced after ${ms} ms`);
      for (const [i, ms] of r.lastBeforeExpiry.entries()) {
        assert.ok(
          ms >= 0,
          `node ${i}: its last ID's tick ended ${-ms} ms after its lease expired in the store`,
        );
      }
      assert.deepEqual(r.fenceCodes, Array(4).fill('IDF_LEASE_LOST'), 'each says why');
      for (const [i, ms] of r.recoverMs.entries())
        assert.ok(ms >= 0, `node ${i} recovered after ${ms} ms`);
      assert.ok(
        (r.refusals.IDF_LEASE_LOST ?? 0) + (r.refusals.IDF_NOT_READY ?? 0) > 0,
        JSON.stringify(r.refusals),
      );
    });
  }

  test('negative control: unfenced proxied nodes issue through the kill and duplicate', async () => {
    const r = await scenario('kill', true);
    console.log(`# lease-http control: ${JSON.stringify(r)}`);
    assert.ok(r.dups > 0, 'without fencing the check sees duplicates');
  });
});
