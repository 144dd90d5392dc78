/**
 * idforge/sequences: central sequences (segments with double buffering, ticket servers,
 * Redis counters) behind one interface. Stores are opened from idforge/stores.
 */
export * from './counter-source.js';
export * from './plan.js';
export * from './ports.js';
export * from './segment-buffer.js';
export * from './sequence.js';
export * from './tag.js';
export * from './ticket-client.js';
export * from './ticket-setup.js';
