// The decoders' fast paths (issue 24, item 4: each decoder within 3 × its floor in
// bench/peers) refuse exactly what the full parsers refuse, with the same error: each
// decoder is tried on every malformed variant of a few valid IDs (every position made every
// kind of bad character, lengths around the right one) against its reference, a parse that
// does the whole work. The timed path and the reference must throw alike and, on valid input,
// agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bytesToHex } from '../../packages/idforge/src/core/encoding/hex.js';
import { InvalidIdError } from '../../packages/idforge/src/core/errors.js';
import { inspect } from '../../packages/idforge/src/core/inspect.js';
import { ksuid, parseKsuid } from '../../packages/idforge/src/core/ksuid.js';
import { decompose } from '../../packages/idforge/src/core/snowflake/codec.js';
import { defineLayout } from '../../packages/idforge/src/core/snowflake/layout.js';
import { LAYOUTS } from '../../packages/idforge/src/core/snowflake/presets.js';
import { parseUlid, ulid, ulidTimestamp } from '../../packages/idforge/src/core/ulid.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import { parseUuid, uuidVariant } from '../../packages/idforge/src/core/uuid/parse.js';
import { uuidv7, uuidv7Timestamp } from '../../packages/idforge/src/core/uuid/v7.js';

/** What a call did: its value, or its error's class, code, reason, position and message. */
function outcome(f: () => unknown): unknown {
  try {
    return { value: f() };
  } catch (e) {
    const err = e as Error & { code?: string; reason?: string; position?: number };
    return {
      error: err.constructor.name,
      code: err.code,
      reason: err.reason,
      position: err.position,
      message: err.message,
    };
  }
}

/** Characters that break some scheme somewhere: digits of other alphabets, case, non-ASCII. */
const BAD = ['g', 'G', 'U', 'u', 'I', 'i', 'L', 'O', 'o', '-', '~', ' ', '\n', 'é', '\u{1F600}'];

/** Every malformed (or not) variant of `valid`: each position replaced, lengths ±1, spaces. */
function variants(valid: string, extra: readonly string[] = []): string[] {
  const out = ['', valid.slice(1), valid.slice(0, -1), `${valid}0`, `0${valid}`, ` ${valid}`];
  for (let i = 0; i < valid.length; i++) {
    for (const c of [...BAD, ...extra]) out.push(valid.slice(0, i) + c + valid.slice(i + 1));
  }
  return out;
}

test('ulidTimestamp refuses what parseUlid refuses, with the same error, and reads its time', () => {
  const ulids = ['01ARZ3NDEKTSV4RRFFQ69G5FAV', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', ulid(), ulid()];
  const timeOf = (b: Uint8Array) =>
    ((b[0]! << 8) | b[1]!) * 2 ** 32 + new DataView(b.buffer, b.byteOffset).getUint32(2);
  for (const options of [undefined, { lenient: false }, { lenient: true }]) {
    for (const text of ulids.flatMap((u) => [
      ...variants(u, ['8', 'Z', 'z', 'l']),
      ...variants(u.toLowerCase()),
    ])) {
      const fast = outcome(() => ulidTimestamp(text, options));
      const full = outcome(() => timeOf(parseUlid(text, options)));
      assert.deepEqual(fast, full, JSON.stringify([text, options]));
    }
  }
  const bad = outcome(() => ulidTimestamp(ulids[0]!, { lenient: 1 } as never));
  assert.deepEqual(
    bad,
    outcome(() => parseUlid(ulids[0]!, { lenient: 1 } as never)),
  );
});

/** The 48-bit big-endian time at the front of `b`. */
function time48(b: Uint8Array): number {
  return ((b[0]! << 8) | b[1]!) * 2 ** 32 + new DataView(b.buffer, b.byteOffset).getUint32(2);
}

test('uuidv7Timestamp of text refuses what parseUuid({ version: 7 }) refuses, alike', () => {
  const uuids = [
    '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', // RFC 9562 Appendix A.6
    'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF',
    uuidv7(),
  ];
  const versions = ['0', '1', '4', '6', '8', 'f'];
  for (const text of uuids.flatMap((u) => variants(u, [...versions, 'c', '9', 'a', 'B']))) {
    const fast = outcome(() => uuidv7Timestamp(text));
    const full = outcome(() => time48(parseUuid(text, { version: 7 })));
    assert.deepEqual(fast, full, JSON.stringify(text));
  }
  for (const input of [1, null, undefined, new Uint8Array(15), [1, 2]]) {
    const err = outcome(() => uuidv7Timestamp(input as never)) as { error: string };
    assert.ok(err.error === 'TypeError' || err.error === 'InvalidIdError', String(input));
  }
});

test('parseUuid refuses every malformed variant with the first position that is wrong', () => {
  const valid = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
  for (const text of variants(valid)) {
    const r = outcome(() => parseUuid(text)) as {
      value?: Uint8Array;
      reason?: string;
      position?: number;
    };
    if (r.value !== undefined) {
      assert.match(text, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
      continue;
    }
    if (text.length !== 36) assert.equal(r.reason, 'length', text);
    else {
      const first = [...text].findIndex((c, i) =>
        [8, 13, 18, 23].includes(i) ? c !== '-' : !/[0-9a-f]/i.test(c),
      );
      const hyphens = [8, 13, 18, 23].every((i) => text[i] === '-');
      assert.equal(r.reason, hyphens ? 'alphabet' : 'format', text);
      assert.equal(r.position, hyphens ? first : [8, 13, 18, 23].find((i) => text[i] !== '-'));
    }
  }
});

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

test('parseKsuid (one pass) refuses every malformed variant with the first bad position', () => {
  const ksuids = ['000000000000000000000000000', 'aWgEPTl1tmebfsQzFP4bxwgy80V', ksuid(), ksuid()];
  for (const text of ksuids.flatMap((k) => variants(k, ['z', 'b', 'Z', '0']))) {
    const r = outcome(() => parseKsuid(text)) as {
      value?: Uint8Array;
      reason?: string;
      position?: number;
    };
    if (text.length !== 27) {
      assert.equal(r.reason, 'length', text);
      continue;
    }
    const first = [...text].findIndex((c) => !B62.includes(c));
    if (first >= 0) {
      assert.deepEqual([r.reason, r.position], ['alphabet', first], text);
      continue;
    }
    const n = [...text].reduce((acc, c) => acc * 62n + BigInt(B62.indexOf(c)), 0n);
    if (n >= 1n << 160n) assert.equal(r.reason, 'overflow', text);
    else assert.equal(BigInt(`0x${Buffer.from(r.value!).toString('hex')}`), n, text);
  }
});

test('decompose reads every field from the 32-bit words as the bigint shift and mask do', () => {
  // Fields across the word boundary, wholly in either word, 1 to 53 bits, with and without
  // the sign bit: every preset, and layouts made to put a field at each awkward place.
  const made = [
    [40, 24],
    [10, 44, 10],
    [32, 32],
    [20, 33, 11],
    [11, 53],
    [31, 1, 32],
    [1, 53, 10],
  ].map((widths, n) =>
    defineLayout({
      name: `words-${n}`,
      epoch: 0,
      signBit: false,
      fields: widths.map((bits, i) => ({
        name: i === 0 ? 'time' : i === widths.length - 1 ? 'sequence' : `f${i}`,
        bits,
      })),
    }),
  );
  const layouts = [...Object.values(LAYOUTS), ...made];
  for (const layout of layouts) {
    const ids = fc.sample(fc.bigInt({ min: 0n, max: layout.maxId }), 300);
    for (const id of [0n, layout.maxId, 1n << 31n, (1n << 32n) - 1n, 1n << 32n, ...ids]) {
      if (id > layout.maxId) continue;
      const d = decompose(layout, id);
      const want = Object.fromEntries(
        layout.fields.map((f) => [f.name, Number((id >> f.shiftBig) & f.maskBig)]),
      );
      assert.equal(d.tick, want[layout.timeField.name], `${layout.name} ${id}`);
      for (const f of layout.fields) {
        if (f.role !== 'time') assert.equal(d.fields[f.name], want[f.name], `${layout.name} ${id}`);
      }
    }
  }
});

test('inspect refuses surrounding whitespace of every kind \\s matches, at its position', () => {
  const spaces: string[] = [];
  for (let c = 0; c <= 0xffff; c++)
    if (/\s/.test(String.fromCharCode(c))) spaces.push(String.fromCharCode(c));
  assert.ok(spaces.length > 20);
  for (const id of [uuidv7(), ulid(), ksuid(), '1234567890123']) {
    for (const sp of spaces) {
      for (const [text, position] of [
        [sp + id, 0],
        [id + sp, id.length],
      ] as const) {
        assert.throws(
          () => inspect(text),
          (e: unknown) =>
            e instanceof InvalidIdError && e.reason === 'format' && e.position === position,
          JSON.stringify(text),
        );
      }
    }
  }
});

test('inspect reads a UUID in each written form from its bytes as the public functions do', () => {
  for (const u of [
    uuidv7(),
    '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
    'C232AB00-9414-11EC-B3C8-9F6BDECED846',
  ]) {
    const canonical = formatUuid(parseUuid(u));
    const digits = canonical.replaceAll('-', '');
    for (const form of [u, u.toUpperCase(), `{${u}}`, `urn:uuid:${u}`, `URN:UUID:${u}`, digits]) {
      const r = inspect(form);
      assert.equal(r.value, canonical, form);
      assert.equal(r.hex, bytesToHex(parseUuid(u)), form);
      assert.equal(r.variant, uuidVariant(u), form);
      if (r.version === 7) assert.equal(r.unixMs, uuidv7Timestamp(u), form);
    }
  }
  for (const text of variants('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', ['{', '}', ':'])) {
    const r = outcome(() => inspect(text, { scheme: 'uuid' })) as {
      error?: string;
      value?: unknown;
    };
    if (r.error !== undefined) assert.equal(r.error, 'InvalidIdError', text);
  }
});
