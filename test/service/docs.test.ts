// docs/service.md stays true to the code: every setting (key, flag, variable, default) and
// every idforge_ metric the service registers is documented.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { CONFIG_KEYS, envName, flagName } from '../../packages/server/src/service/index.js';
import { openTestService, type TestService } from '../helpers/service.js';

const doc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');

test('every setting is in the settings table with its flag and variable', () => {
  for (const key of Object.keys(CONFIG_KEYS)) {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${key}\` |`));
    assert.ok(row !== undefined, `docs/service.md has a row for ${key}`);
    if (key === 'tokens') continue;
    assert.ok(row.includes(`\`${flagName(key)}\``), `${key}: flag ${flagName(key)}`);
    assert.ok(row.includes(`\`${envName(key)}\``), `${key}: variable ${envName(key)}`);
  }
});

let s: TestService;
before(async () => {
  s = await openTestService();
});
after(() => s.close());

test('every idforge_ metric is in the metrics table', async () => {
  const names = (await s.deps.metrics.registry.getMetricsAsJSON())
    .map((m) => m.name)
    .filter((n) => n.startsWith('idforge_'));
  assert.ok(names.length >= 15, `${names.length} idforge_ metrics`);
  for (const name of names)
    assert.ok(doc.includes(`| \`${name}\` |`), `docs/service.md documents ${name}`);
});
