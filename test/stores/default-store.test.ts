// The embedded default store is named in two packages that cannot import each other's
// (idforge/cli for the library's commands, @idforge/stores for the service): one value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_STORE } from '../../packages/idforge/src/cli/index.js';
import { CONFIG_KEYS, resolveConfig } from '../../packages/server/src/service/config.js';
import { DEFAULT_STORE_URL } from '../../packages/stores/src/index.js';

test('one default store: the library CLI, the stores package and the service agree', () => {
  assert.equal(DEFAULT_STORE, DEFAULT_STORE_URL);
  assert.equal(CONFIG_KEYS.store.default, DEFAULT_STORE_URL);
  assert.equal(resolveConfig({}).store, DEFAULT_STORE_URL);
});
