/**
 * idforge/hlc: hybrid logical clocks (Kulkarni, Demirbas et al. 2014), their timestamps, and
 * IDs that respect happened-before. Browser-safe, like the core: it imports only the core's
 * barrels and its own files, no `node:` module and no timer. Every export is listed by name.
 */

// NotReadyError is in the core because idforge/coord's node throws it too.
export { NotReadyError } from '../core/internal.js';
export {
  type HlcStats,
  HybridLogicalClock,
  type HybridLogicalClockOptions,
} from './clock.js';
export { HlcCounterOverflowError, HlcDriftError } from './errors.js';
export { HLC_LAYOUT, HlcIdGenerator, type HlcIdGeneratorOptions, hlcOfId } from './ids.js';
export {
  HlcNodeClock,
  type HlcNodeClockOptions,
  HlcNodeGenerator,
  type HlcNodeInit,
} from './node.js';
export {
  compareHlc,
  formatHlc,
  HLC_MAX_C,
  HLC_MAX_L,
  HLC_TEXT_LENGTH,
  type HlcTimestamp,
  packHlc,
  parseHlc,
  unpackHlc,
} from './timestamp.js';
