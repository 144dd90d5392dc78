/**
 * TypeID (jetify's spec 0.3) generation: idforge/public against typeid-js, the spec's own
 * TypeScript implementation. Every case returns the TypeID text a caller gets, prefix "user".
 */
import { typeid as typeidJs, typeidUnboxed } from 'typeid-js';
import { TypeIdGenerator, typeid } from '../../packages/idforge/src/public/typeid-generator.js';
import type { SpeedGroup } from './speed.js';

const IDFORGE = 'idforge typeid';
const PEERS = ['typeid-js typeid().toString()', 'typeid-js typeidUnboxed'] as const;

/** The TypeID speed group (generators built once, here). */
export function typeIdGroup(): SpeedGroup {
  const gen = new TypeIdGenerator({ prefix: 'user' });
  return {
    title: 'TypeID',
    cases: [
      { name: IDFORGE, fn: () => typeid('user') },
      { name: 'idforge new TypeIdGenerator({ prefix }).next', fn: () => gen.next() },
      { name: PEERS[0], fn: () => typeidJs('user').toString() },
      { name: PEERS[1], fn: () => typeidUnboxed('user') },
    ],
  };
}

/** The summary row: at least 3x faster than the faster of typeid-js's two APIs (issue 12). */
export const typeIdComparison = {
  scheme: 'TypeID',
  idforge: IDFORGE,
  peers: PEERS,
  goal: { minRatio: 3 },
} as const;
