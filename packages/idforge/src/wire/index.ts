/**
 * idforge/wire: the service's wire contract, what @idforge/server and idforge/client agree on
 * (defined once in the core's `wire.ts`): the schemes the service issues, the HLC header, the
 * limits of a request, and the types of the JSON bodies. Constants only, browser-safe; a client
 * in another language can take them from here and the routes from docs/service.md.
 */
export {
  HLC_HEADER,
  type IdBatchBody,
  MAX_GENE_FROM,
  MAX_REQUEST_COUNT,
  MAX_SEQUENCE_VALUE,
  MAX_TAG_LENGTH,
  type NumberRange,
  SERVICE_SCHEMES,
  type SegmentBody,
  type ServiceErrorBody,
  type ServiceScheme,
} from '../core/wire.js';
