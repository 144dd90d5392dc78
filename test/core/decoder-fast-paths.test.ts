// The decoders' fast paths (issue 24, item 4: each decoder within 3 × its floor in
// bench/peers) refuse exactly what the full parsers refuse, with the same error: each
// decoder is tried on every malformed variant of a few valid IDs (every position made every
// kind of bad character, lengths around the right one) against its reference, a parse that
// does the whole work. The timed path and the reference must throw alike and, on valid input,
// agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseUlid, ulid, ulidTimestamp } from '../../packages/idforge/src/core/ulid.js';

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
