/**
 * Decoders (issue 24, item 4): `uuidv7Timestamp`, `parseUuid`, `ulidTimestamp`, `parseKsuid`,
 * Snowflake `decompose` and `inspect`, each in a group with its floor (decoder-floors.ts: the
 * bare work, a plain loop over the same characters) and the npm peers that decode the same
 * text. The goal is idforge's time ≤ 3 × the floor's, in the same run.
 *
 * Inputs are 4,096 IDs of each scheme made by idforge, cycled (Snowflakes: `default` layout,
 * node and sequence varied). Before timing, {@link checkDecoderFloors} checks that every floor
 * returns the decoder's result for every input and refuses what the decoder refuses.
 *
 * Peers, what they return and what they check: `uuid` 14 `parse` (16 bytes; a regex check);
 * `ulid` 3 and `ulidx` 2 `decodeTime` (unix ms; they read the 10 time digits only: the 16
 * others are not validated); `ksuid` 3 `KSUID.parse` (a KSUID object over a Buffer);
 * `@sapphire/snowflake` 3 `deconstruct` (bigint fields; digits not validated: `BigInt`).
 */
import assert from 'node:assert/strict';
import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake';
import KSUID from 'ksuid';
import { decodeTime as ulidDecodeTime } from 'ulid';
import { decodeTime as ulidxDecodeTime } from 'ulidx';
import { parse as uuidParse } from 'uuid';
import { inspect } from '../../packages/idforge/src/core/inspect.js';
import { ksuid, parseKsuid } from '../../packages/idforge/src/core/ksuid.js';
import { compose, decompose } from '../../packages/idforge/src/core/snowflake/codec.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';
import { ulid, ulidTimestamp } from '../../packages/idforge/src/core/ulid.js';
import { parseUuid } from '../../packages/idforge/src/core/uuid/parse.js';
import { uuidv7, uuidv7Timestamp } from '../../packages/idforge/src/core/uuid/v7.js';
import {
  floorDecompose,
  floorInspectSnowflake,
  floorInspectUuidv7,
  floorParseKsuid,
  floorParseUuid,
  floorUlidTimestamp,
  floorUuidv7Timestamp,
} from './decoder-floors.js';
import { ns } from './numbers.js';
import { ratio, table, type Verdict, verdict } from './report.js';
import type { SpeedGroup } from './speed.js';

/** The goal: idforge's ns ≤ DECODER_GOAL × the floor's ns. */
export const DECODER_GOAL = 3;

const N = 4096;
const layout = getLayout('default');

/** One decoder: its idforge case, its floor case, its peers; names are the case names. */
interface Decoder {
  readonly decoder: string;
  readonly idforge: string;
  readonly floor: string;
  readonly peers: readonly string[];
  /** idforge's and the floor's function, for the checks. */
  readonly mine: (text: string) => unknown;
  readonly bare: (text: string) => unknown;
  readonly inputs: readonly string[];
}

function inputs() {
  const node = (i: number) => (i * 37) & 1023;
  const snowflakes = Array.from({ length: N }, (_, i) =>
    compose(layout, {
      unixMs: Date.now() - i * 1000,
      fields: { node: node(i), sequence: i & 4095 },
    }).toString(),
  );
  return {
    uuids: Array.from({ length: N }, () => uuidv7()),
    ulids: Array.from({ length: N }, () => ulid()),
    ksuids: Array.from({ length: N }, () => ksuid()),
    snowflakes,
  };
}

function decoders(): Decoder[] {
  const { uuids, ulids, ksuids, snowflakes } = inputs();
  const d = (
    decoder: string,
    mine: (t: string) => unknown,
    bare: (t: string) => unknown,
    texts: readonly string[],
    peers: readonly string[] = [],
  ): Decoder => ({
    decoder,
    idforge: `idforge ${decoder}`,
    floor: `floor of ${decoder}`,
    peers,
    mine,
    bare,
    inputs: texts,
  });
  return [
    d('uuidv7Timestamp', uuidv7Timestamp, floorUuidv7Timestamp, uuids, ['uuid parse + 6 bytes']),
    d('parseUuid', (t) => parseUuid(t), floorParseUuid, uuids, ['uuid parse']),
    d('ulidTimestamp', (t) => ulidTimestamp(t), floorUlidTimestamp, ulids, [
      'ulid decodeTime',
      'ulidx decodeTime',
    ]),
    d('parseKsuid', (t) => parseKsuid(t), floorParseKsuid, ksuids, ['ksuid KSUID.parse']),
    d('decompose', (t) => decompose(layout, t), floorDecompose, snowflakes, [
      '@sapphire/snowflake deconstruct',
    ]),
    d('inspect (UUIDv7)', (t) => inspect(t), floorInspectUuidv7, uuids),
    d('inspect (Snowflake)', (t) => inspect(t), floorInspectSnowflake, snowflakes),
  ];
}

/** The peers' cases, by name: what a caller of each package writes. */
function peerCases(): Map<string, (text: string) => unknown> {
  const sapphire = new SapphireSnowflake(layout.epochMs);
  return new Map<string, (text: string) => unknown>([
    [
      'uuid parse + 6 bytes',
      (t) => {
        const b = uuidParse(t);
        return (
          ((b[0]! << 8) | b[1]!) * 4294967296 +
          (((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0)
        );
      },
    ],
    ['uuid parse', (t) => uuidParse(t)],
    ['ulid decodeTime', (t) => ulidDecodeTime(t)],
    ['ulidx decodeTime', (t) => ulidxDecodeTime(t)],
    ['ksuid KSUID.parse', (t) => KSUID.parse(t)],
    ['@sapphire/snowflake deconstruct', (t) => sapphire.deconstruct(t)],
  ]);
}

const plan = decoders();

/** Inputs that every decoder must refuse: each character of a valid one made bad, and more. */
function malformed(valid: string, bad: string): string[] {
  const out = ['', valid.slice(1), `${valid}0`, ` ${valid}`, `${valid}\n`];
  for (let i = 0; i < valid.length; i++) out.push(valid.slice(0, i) + bad + valid.slice(i + 1));
  return out;
}

function throws(f: () => unknown): boolean {
  try {
    f();
    return false;
  } catch {
    return true;
  }
}

/**
 * Every floor gives the decoder's result for every input, and refuses exactly what the
 * decoder refuses among malformed variants of the first inputs. Throws otherwise.
 */
export function checkDecoderFloors(): void {
  for (const p of plan) {
    for (const text of p.inputs) {
      assert.deepStrictEqual(p.bare(text), p.mine(text), `${p.floor} differs on ${text}`);
    }
    for (const bad of ['g', 'U', '-', '~', 'é', 'Z', '8']) {
      for (const text of p.inputs.slice(0, 4).flatMap((t) => malformed(t, bad))) {
        const mine = throws(() => p.mine(text));
        assert.equal(
          throws(() => p.bare(text)),
          mine,
          `${p.floor} on ${JSON.stringify(text)}`,
        );
      }
    }
  }
}

/** One group per decoder: idforge, its floor, its peers; inputs cycle through N IDs. */
export function decoderGroups(): SpeedGroup[] {
  const peers = peerCases();
  return plan.map((p) => {
    const texts = p.inputs;
    let i = 0;
    const next = () => {
      i = (i + 1) & (N - 1);
      return texts[i]!;
    };
    const mine = p.mine;
    const bare = p.bare;
    return {
      title: `Decode: ${p.decoder}`,
      cases: [
        { name: p.idforge, fn: () => mine(next()) },
        { name: p.floor, fn: () => bare(next()) },
        ...p.peers.map((name) => {
          const f = peers.get(name)!;
          return { name, fn: () => f(next()) };
        }),
      ],
    };
  });
}

/** Section 1c: each decoder against its floor (the goal) and its fastest peer (for scale). */
export function decoderTable(results: ReadonlyMap<string, number>): {
  text: string;
  verdicts: Verdict[];
} {
  const time = (name: string): number => results.get(name) ?? Number.NaN;
  const verdicts: Verdict[] = [];
  const rows = plan.map((p) => {
    const mine = time(p.idforge);
    const floor = time(p.floor);
    const factor = mine / floor;
    const pass = factor <= DECODER_GOAL;
    const detail = `${ns(mine)} ns / ${ns(floor)} ns = ${ratio(factor)}`;
    verdicts.push({ scheme: `decode ${p.decoder}`, pass, detail });
    const fastest = [...p.peers].sort((a, b) => time(a) - time(b))[0];
    return [
      p.decoder,
      ns(mine),
      ns(floor),
      ratio(factor),
      `≤ ${ratio(DECODER_GOAL)}: ${verdict(pass)}`,
      fastest ?? '—',
      fastest === undefined ? '—' : ns(time(fastest)),
    ];
  });
  const headers = [
    'decoder',
    'idforge ns',
    'floor ns',
    '× floor',
    'goal',
    'fastest peer',
    'peer ns',
  ];
  return { text: table(headers, rows), verdicts };
}
