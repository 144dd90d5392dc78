/**
 * idforge: the public API of the core. Pure: no I/O, no timers, no `node:` imports; it runs
 * in Node.js, browsers and edge runtimes. This file is the only re-exporter of the layer.
 */
export * from './assert.js';
export * from './backoff.js';
export * from './clock.js';
export * from './encoding/base32-crockford.js';
export * from './encoding/base62.js';
export * from './encoding/hex.js';
export * from './errors.js';
export * from './errors-coord.js';
export * from './errors-seq.js';
export * from './inspect.js';
export * from './ksuid.js';
export * from './random.js';
export * from './snowflake/codec.js';
export * from './snowflake/generator.js';
export * from './snowflake/layout.js';
export * from './snowflake/presets.js';
export * from './ulid.js';
export * from './uuid/format.js';
export * from './uuid/parse.js';
export * from './uuid/v1v6.js';
export * from './uuid/v4.js';
export * from './uuid/v7.js';
