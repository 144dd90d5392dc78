/**
 * idforge/coord: worker-ID leases and clock high-water marks for Snowflake nodes. Stores are
 * opened with `openLeaseStore` from idforge/stores; this layer never imports a driver.
 */
export * from './fleet-check.js';
export * from './lease-keeper.js';
export * from './ports.js';
export * from './snowflake-node.js';
export * from './watermark.js';
