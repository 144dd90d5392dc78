// The embedded default store is declared once, in the library's core
// (packages/idforge/src/core/default-store.ts), exported by idforge/sequences: idforge/cli's
// DEFAULT_STORE is that constant, and @idforge/stores re-exports it as DEFAULT_STORE_URL, the
// service's default. This checks that every name of it agrees.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_STORE } from '../../packages/idforge/src/cli/index.js';
import { DEFAULT_STORE_URL as LIBRARY_DEFAULT } from '../../packages/idforge/src/sequences/index.js';
import { CONFIG_KEYS, resolveConfig } from '../../packages/server/src/service/config/config.js';
import { DEFAULT_STORE_URL } from '../../packages/stores/src/index.js';

test('one default store: the library CLI, the stores package and the service agree', () => {
  assert.equal(LIBRARY_DEFAULT, 'sqlite:idforge.db');
  assert.equal(DEFAULT_STORE, LIBRARY_DEFAULT);
  assert.equal(DEFAULT_STORE_URL, LIBRARY_DEFAULT);
  assert.equal(CONFIG_KEYS.store.default, DEFAULT_STORE_URL);
  assert.equal(resolveConfig({}).store, DEFAULT_STORE_URL);
});
