/**
 * idforge/schemes: the registry of ID schemes, for the consumers that handle every scheme (the
 * CLI, the service, the client's checks, inspect). Each descriptor says what is true of its
 * scheme; the lists of schemes elsewhere are derived from {@link SCHEMES}. A bundle of one
 * scheme imports that scheme's functions from `idforge` and never this module.
 */
export type {
  Decoded,
  DecodeOptions,
  GenFlag,
  GenFlags,
  GenSource,
  SchemeBenchKey,
  SchemeDescriptor,
  SchemeGen,
  SchemeInspector,
  SchemeService,
} from './descriptor.js';
export {
  benchKeys,
  type GeneratedScheme,
  type InspectFamily,
  type InspectHint,
  inspectHints,
  inspectors,
  SCHEMES,
  type SchemeBenchKeyName,
  type ServedScheme,
  schemeNamed,
  servedNames,
} from './registry.js';
