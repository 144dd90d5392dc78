/**
 * Hybrid logical clocks (idforge/hlc) against the npm HLC packages that implement the paper's
 * two events, a local/send event and the receipt of a remote timestamp:
 * - @consento/hlc 2.1 (MIT): `new HLC()`, `now()` and `update(remote)`; `Timestamp` objects
 *   whose wall time is a bigint of ns from `process.hrtime.bigint()`, 32-bit counter.
 * - @tpp/hybrid-logical-clock 1.0 (ISC): one clock per module, `nxt()` and `recv(remote)`;
 *   timestamps are strings `"<Date.now()>:<counter>:<uuid>"`, parsed on every `recv`.
 * Each case returns what its API gives a caller: idforge an `{ l, c }` object (or a bigint
 * ID), @consento/hlc a `Timestamp`, @tpp/hybrid-logical-clock a string.
 *
 * No peer issues 64-bit IDs, so `HlcIdGenerator.next()` is compared with the peers' send
 * events. Its layout has a 12-bit counter: 4,096 IDs per ms, at least 244 ns per ID
 * sustained, which a tight loop reaches. As for Snowflake, it is timed twice: on the default
 * clock (capped, as a caller gets it) and on a bench-only MonotonicClock whose reading runs
 * 32 times faster (131,072 IDs per real ms, which no loop here fills), which shows the cost
 * per ID without the wait. The receive cases merge a remote timestamp taken once from a
 * second clock of the same library before timing, so it is behind the local clock: the
 * common case of a message from a peer with a slightly earlier clock.
 *
 * {@link checkHlcContenders} runs before timing: every library's send events must increase
 * and a receipt must order after a remote timestamp 5 ms ahead (what makes it an HLC).
 */
import { createRequire } from 'node:module';
import HLC from '@consento/hlc';
import { MonotonicClock } from '../../packages/idforge/src/core/clock.js';
import { HybridLogicalClock } from '../../packages/idforge/src/hlc/clock.js';
import { HlcIdGenerator, hlcOfId } from '../../packages/idforge/src/hlc/ids.js';
import { compareHlc, type HlcTimestamp } from '../../packages/idforge/src/hlc/timestamp.js';
import type { Comparison, SpeedGroup } from './speed.js';

/** @tpp/hybrid-logical-clock 1.0 (no type declarations): one clock per module. */
interface TppHlc {
  /** The send event: `"<ms>:<counter>:<node uuid>"`. */
  nxt(): string;
  /** The receipt of a remote timestamp string; returns the new timestamp string. */
  recv(remote: string): string;
}
const tpp = createRequire(import.meta.url)('@tpp/hybrid-logical-clock') as TppHlc;

const NOW = 'idforge HybridLogicalClock.now';
const NEXT = 'idforge HlcIdGenerator.next (bench clock x32, uncapped)';
const NEXT_CAPPED = 'idforge HlcIdGenerator.next (4,096/ms cap)';
const RECEIVE = 'idforge HybridLogicalClock.receive';
const NOW_PEERS = ['@consento/hlc now()', '@tpp/hybrid-logical-clock nxt()'] as const;
const RECV_PEERS = [
  '@consento/hlc update(remote), last',
  '@tpp/hybrid-logical-clock recv(remote)',
] as const;
const NODE = 1;

/** A MonotonicClock whose reading runs `speed` times faster than real time (bench only). */
function fastClock(speed: number): MonotonicClock {
  return new MonotonicClock({ monotonic: () => performance.now() * speed });
}

/** @tpp's timestamp string as (ms, counter); its own code parses it the same way. */
function parseTpp(ts: string): { l: number; c: number } {
  const [l = '', c = ''] = ts.split(':');
  return { l: Number.parseInt(l, 10), c: Number.parseInt(c, 10) };
}

function comparePair(a: { l: number; c: number }, b: { l: number; c: number }): number {
  return a.l !== b.l ? a.l - b.l : a.c - b.c;
}

/** One library as the check sees it: timestamps of type T and their order. */
interface HlcUnderCheck<T> {
  readonly name: string;
  now(): T;
  receive(remote: T): T;
  /** A timestamp of another node, `ms` ahead of `t`. */
  ahead(t: T, ms: number): T;
  compare(a: T, b: T): number;
}

function check<T>(lib: HlcUnderCheck<T>): void {
  const a = lib.now();
  const b = lib.now();
  if (!(lib.compare(a, b) < 0)) throw new Error(`${lib.name}: now() did not increase`);
  const remote = lib.ahead(b, 5);
  const r = lib.receive(remote);
  if (!(lib.compare(remote, r) < 0 && lib.compare(b, r) < 0)) {
    throw new Error(`${lib.name}: receive(remote 5 ms ahead) is not after the remote`);
  }
  if (!(lib.compare(r, lib.now()) < 0)) {
    throw new Error(`${lib.name}: now() after receive is not after the receipt`);
  }
}

/**
 * Checks that every contender behaves as an HLC (send events increase; a receipt orders after
 * the remote and the local state). Throws, failing the run, on the first that does not. Uses
 * fresh clocks except @tpp's module-wide one, which then runs 5 ms ahead for up to 5 ms.
 */
export function checkHlcContenders(): void {
  const ours = new HybridLogicalClock();
  check<HlcTimestamp>({
    name: 'idforge HybridLogicalClock',
    now: () => ours.now(),
    receive: (remote) => ours.receive(remote),
    ahead: (t, ms) => ({ l: t.l + ms, c: t.c }),
    compare: compareHlc,
  });
  // The ID generator's receive returns nothing: the next ID must order after the remote.
  const gen = new HlcIdGenerator({ node: NODE });
  const first = gen.next();
  const second = gen.next();
  const remote = { l: hlcOfId(second).l + 5, c: 0 };
  gen.receive(remote);
  if (!(first < second && compareHlc(remote, hlcOfId(gen.next())) < 0)) {
    throw new Error('idforge HlcIdGenerator: IDs do not increase or do not follow a receipt');
  }
  const consento = new HLC();
  check<HLC.Timestamp>({
    name: '@consento/hlc',
    now: () => consento.now(),
    receive: (remote) => {
      consento.update(remote);
      return consento.last;
    },
    ahead: (t, ms) => new HLC.Timestamp(t.wallTime + BigInt(ms) * 1_000_000n, t.logical),
    compare: (a, b) => HLC.Timestamp.compare(a, b),
  });
  check<string>({
    name: '@tpp/hybrid-logical-clock',
    now: () => tpp.nxt(),
    receive: (remote) => tpp.recv(remote),
    ahead: (t, ms) => {
      const { l, c } = parseTpp(t);
      return `${l + ms}:${c}:another-node`;
    },
    compare: (a, b) => comparePair(parseTpp(a), parseTpp(b)),
  });
}

/** The two HLC groups (send/ID, receive), after {@link checkHlcContenders}. */
export function hlcGroups(): SpeedGroup[] {
  checkHlcContenders();
  const clock = new HybridLogicalClock();
  const ids = new HlcIdGenerator({ node: NODE, clock: fastClock(32) });
  const cappedIds = new HlcIdGenerator({ node: NODE });
  const consento = new HLC();
  // The remote timestamps: one per library, from a second clock, taken now (so behind the
  // local clock by the time the cases run).
  const remoteClock = new HybridLogicalClock();
  const remote = remoteClock.now();
  const consentoRemote = new HLC().now();
  const tppRemote = `${Date.now()}:0:a-remote-node`;
  const receiver = new HybridLogicalClock();
  const consentoReceiver = new HLC();
  return [
    {
      title: 'HLC send event / ID',
      cases: [
        { name: NOW, fn: () => clock.now() },
        { name: NEXT, fn: () => ids.next() },
        { name: NEXT_CAPPED, fn: () => cappedIds.next() },
        { name: NOW_PEERS[0], fn: () => consento.now() },
        { name: NOW_PEERS[1], fn: () => tpp.nxt() },
      ],
    },
    {
      title: 'HLC receive',
      cases: [
        { name: RECEIVE, fn: () => receiver.receive(remote) },
        {
          // update() returns the new timestamp, though its type declarations say void.
          name: RECV_PEERS[0],
          fn: () => {
            consentoReceiver.update(consentoRemote);
            return consentoReceiver.last;
          },
        },
        { name: RECV_PEERS[1], fn: () => tpp.recv(tppRemote) },
      ],
    },
  ];
}

/** Summary rows; no goal was set for these. */
export const hlcComparisons: readonly Comparison[] = [
  { scheme: 'HLC now', idforge: NOW, peers: NOW_PEERS, note: '{ l, c } vs Timestamp / string' },
  {
    scheme: 'HLC ID next',
    idforge: NEXT,
    peers: NOW_PEERS,
    note: "bigint ID vs the peers' now(); clock x32",
  },
  {
    scheme: 'HLC ID next (rate-capped)',
    idforge: NEXT_CAPPED,
    peers: NOW_PEERS,
    note: '4,096/ms cap: ≥ 244 ns/ID sustained',
  },
  { scheme: 'HLC receive', idforge: RECEIVE, peers: RECV_PEERS, note: 'remote behind the clock' },
];
