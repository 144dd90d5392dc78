/**
 * What section 1 times, scheme by scheme, and how the summary compares idforge with its peers.
 *
 * idforge is imported from its source files, not from the barrel, so the benchmark fails only
 * on the modules it uses. Every case returns what a caller gets: a string for the text
 * schemes, a bigint for Snowflake.
 */
import { randomUUID } from 'node:crypto';
import id128 from 'id128';
import KSUID from 'ksuid';
import { monotonicFactory as ulidMonotonicFactory, ulid as ulidPkg } from 'ulid';
import { monotonicFactory as ulidxMonotonicFactory, ulid as ulidxUlid } from 'ulidx';
import { v4 as uuidPkgV4, v7 as uuidPkgV7 } from 'uuid';
import { uuidv7 as uuidv7Pkg } from 'uuidv7';
import { ksuid } from '../../packages/idforge/src/core/ksuid.js';
import { monotonicUlid, ulid } from '../../packages/idforge/src/core/ulid.js';
import { UuidV4Generator, uuidv4 } from '../../packages/idforge/src/core/uuid/v4.js';
import { uuidv7 } from '../../packages/idforge/src/core/uuid/v7.js';
import {
  type IdforgeSnowflake,
  idforgeSnowflake,
  idforgeUncappedSnowflake,
} from './idforge-snowflake.js';
import { publicIdComparisons, publicIdGroups } from './public-group.js';
import { snowflakePeers } from './snowflake-peers.js';
import type { Comparison, SpeedGroup } from './speed.js';
import { typeIdComparison, typeIdGroup } from './typeid-group.js';

/** The speed groups and their summary rows, built once generators are constructed. */
export interface SpeedPlan {
  readonly groups: readonly SpeedGroup[];
  readonly comparisons: readonly Comparison[];
}

const RANDOM_UUID_V7_REF = 'crypto.randomUUID (native v4, reference)';

function snowflakeCases(defaultGen: IdforgeSnowflake, uncappedGen: IdforgeSnowflake) {
  const peers = snowflakePeers.map((p) => {
    const source = p.create();
    // flake-idgen throws once its 4,096 sequence values of a millisecond are used: the
    // catch is part of what a caller of its synchronous API pays.
    const fn =
      p.name === 'flake-idgen'
        ? () => {
            try {
              return source.next();
            } catch {
              return 0n;
            }
          }
        : () => source.next();
    const suffix = p.name === 'flake-idgen' ? ' (overflow throws, caught)' : '';
    return { name: `${p.name}${suffix}`, fn };
  });
  const idforgeCases = [
    { name: `idforge Snowflake ${uncappedGen.label}`, fn: () => uncappedGen.generator.next() },
    { name: `idforge Snowflake ${defaultGen.label}`, fn: () => defaultGen.generator.next() },
  ];
  return { idforgeCases, peers };
}

/** Builds every generator and case (generators keep state across the cases' calls). */
export function speedPlan(): SpeedPlan {
  const pooledV4 = new UuidV4Generator();
  const ulidMono = ulidMonotonicFactory();
  const ulidxMono = ulidxMonotonicFactory();
  const sf = snowflakeCases(idforgeSnowflake(), idforgeUncappedSnowflake());

  const groups: SpeedGroup[] = [
    {
      title: 'UUIDv4',
      cases: [
        { name: 'idforge uuidv4', fn: () => uuidv4() },
        { name: 'idforge new UuidV4Generator().next (pooled)', fn: () => pooledV4.next() },
        { name: 'uuid v4', fn: () => uuidPkgV4() },
        { name: 'crypto.randomUUID', fn: () => randomUUID() },
      ],
    },
    {
      title: 'UUIDv7',
      cases: [
        { name: 'idforge uuidv7', fn: () => uuidv7() },
        { name: 'uuid v7', fn: () => uuidPkgV7() },
        { name: 'uuidv7', fn: () => uuidv7Pkg() },
        { name: RANDOM_UUID_V7_REF, fn: () => randomUUID() },
      ],
    },
    {
      title: 'ULID',
      cases: [
        { name: 'idforge ulid', fn: () => ulid() },
        { name: 'ulid ulid', fn: () => ulidPkg() },
        { name: 'ulidx ulid', fn: () => ulidxUlid() },
        { name: 'id128 Ulid', fn: () => id128.Ulid.generate().toCanonical() },
      ],
    },
    {
      title: 'ULID monotonic',
      cases: [
        { name: 'idforge monotonicUlid', fn: () => monotonicUlid() },
        { name: 'ulid monotonicFactory', fn: () => ulidMono() },
        { name: 'ulidx monotonicFactory', fn: () => ulidxMono() },
        { name: 'id128 UlidMonotonic', fn: () => id128.UlidMonotonic.generate().toCanonical() },
      ],
    },
    {
      title: 'KSUID',
      cases: [
        { name: 'idforge ksuid', fn: () => ksuid() },
        { name: 'ksuid randomSync().string', fn: () => KSUID.randomSync().string },
      ],
    },
    { title: 'Snowflake', cases: [...sf.idforgeCases, ...sf.peers] },
  ];

  const sfPeers = sf.peers.map((p) => p.name);
  const comparisons: Comparison[] = [
    { scheme: 'UUIDv4', idforge: 'idforge uuidv4', peers: ['uuid v4', 'crypto.randomUUID'] },
    {
      scheme: 'UUIDv7',
      idforge: 'idforge uuidv7',
      peers: ['uuid v7', 'uuidv7', RANDOM_UUID_V7_REF],
      goal: { reference: RANDOM_UUID_V7_REF, minRatio: 1 },
    },
    {
      scheme: 'ULID',
      idforge: 'idforge ulid',
      peers: ['ulid ulid', 'ulidx ulid', 'id128 Ulid'],
      goal: { minRatio: 2 },
    },
    {
      scheme: 'ULID monotonic',
      idforge: 'idforge monotonicUlid',
      peers: ['ulid monotonicFactory', 'ulidx monotonicFactory', 'id128 UlidMonotonic'],
      goal: { minRatio: 2 },
    },
    {
      scheme: 'KSUID',
      idforge: 'idforge ksuid',
      peers: ['ksuid randomSync().string'],
      goal: { minRatio: 10 },
    },
    {
      scheme: 'Snowflake',
      idforge: sf.idforgeCases[0]!.name,
      peers: sfPeers,
      note: 'see 2a/2b: speed without uniqueness',
    },
    {
      scheme: 'Snowflake (rate-capped)',
      idforge: sf.idforgeCases[1]!.name,
      peers: sfPeers,
      note: '4,096/ms cap: ≥ 244 ns/ID sustained',
    },
  ];
  groups.push(typeIdGroup());
  comparisons.push(typeIdComparison);
  groups.push(...publicIdGroups());
  comparisons.push(...publicIdComparisons);
  return { groups, comparisons };
}
