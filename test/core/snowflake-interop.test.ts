import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DiscordSnowflake, TwitterSnowflake } from '@sapphire/snowflake';
import fc from 'fast-check';
import { compose, decompose } from '../../packages/idforge/src/core/snowflake/codec.js';
import type { Layout } from '../../packages/idforge/src/core/snowflake/layout.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';

describe('interop with @sapphire/snowflake (peer oracle), both ways', () => {
  const discord = getLayout('discord');
  const twitter = getLayout('twitter-2010');
  const args = (l: Layout) =>
    fc.record({
      unixMs: fc.integer({ min: l.epochMs, max: Math.min(l.horizonMs - 1, 2 ** 52) }),
      a: fc.integer({ min: 0, max: 31 }),
      b: fc.integer({ min: 0, max: 31 }),
      seq: fc.integer({ min: 0, max: 4095 }),
    });

  test('discord: sapphire generate → idforge decompose, idforge compose → sapphire deconstruct', () => {
    fc.assert(
      fc.property(args(discord), ({ unixMs, a, b, seq }) => {
        const theirs = DiscordSnowflake.generate({
          timestamp: unixMs,
          workerId: BigInt(a),
          processId: BigInt(b),
          increment: BigInt(seq),
        });
        const d = decompose(discord, theirs);
        assert.equal(d.unixMs, unixMs);
        assert.deepEqual(d.fields, { worker: a, process: b, increment: seq });
        const ours = compose(discord, {
          unixMs,
          fields: { worker: a, process: b, increment: seq },
        });
        assert.equal(ours, theirs);
        const back = DiscordSnowflake.deconstruct(ours);
        assert.deepEqual(
          [back.timestamp, back.workerId, back.processId, back.increment],
          [BigInt(unixMs), BigInt(a), BigInt(b), BigInt(seq)],
        );
      }),
      { numRuns: 300 },
    );
  });

  test('twitter-2010: sapphire workerId/processId are our datacenter/worker', () => {
    fc.assert(
      fc.property(args(twitter), ({ unixMs, a, b, seq }) => {
        const theirs = TwitterSnowflake.generate({
          timestamp: unixMs,
          workerId: BigInt(a),
          processId: BigInt(b),
          increment: BigInt(seq),
        });
        const fields = { datacenter: a, worker: b, sequence: seq };
        const d = decompose(twitter, theirs);
        assert.equal(d.unixMs, unixMs);
        assert.deepEqual(d.fields, fields);
        const ours = compose(twitter, { unixMs, fields });
        assert.equal(ours, theirs);
        // Not timestampFrom(): it goes through a Number and can round up by a millisecond.
        assert.equal(TwitterSnowflake.deconstruct(ours).timestamp, BigInt(unixMs));
      }),
      { numRuns: 300 },
    );
  });

  test('the published Discord ID decodes the same in both', () => {
    const theirs = DiscordSnowflake.deconstruct('175928847299117063');
    const ours = decompose(discord, '175928847299117063');
    assert.equal(Number(theirs.timestamp), ours.unixMs);
    assert.equal(Number(theirs.workerId), ours.fields.worker);
    assert.equal(Number(theirs.processId), ours.fields.process);
    assert.equal(Number(theirs.increment), ours.fields.increment);
  });
});
