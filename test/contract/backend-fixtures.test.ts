// The contract suites loop over the registry (test/helpers/backend-fixtures.ts): a backend
// registered for a port is given its fixture, or fails a test of its own for having none, so a
// new backend cannot be registered without running every contract of its ports.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORE_PORTS } from '../../packages/stores/src/backend.js';
import { backendsWith, registerBackend } from '../../packages/stores/src/backends.js';
import { contractPlan } from '../helpers/backend-fixtures.js';
import { memoryBackend } from '../helpers/memory-backend.js';

test('every built-in backend of a store or ticket port has a contract fixture', () => {
  for (const port of [...STORE_PORTS, 'tickets'] as const) {
    assert.deepEqual(
      contractPlan(port).flatMap((p) => (p.missing === null ? [] : [p.missing])),
      [],
      port,
    );
  }
});

test('a registered backend without a fixture is named by the loop of each port it serves', () => {
  registerBackend(memoryBackend);
  assert.ok(backendsWith('leases').includes(memoryBackend));
  const plan = contractPlan('leases');
  assert.deepEqual(
    plan.map((p) => [p.backend.name, p.missing]),
    [
      ...backendsWith('leases')
        .filter((b) => b !== memoryBackend)
        .map((b) => [b.name, null]),
      [
        'memory',
        'backend memory serves leases but has no contract fixture ' +
          '(add it to test/helpers/backend-fixtures.ts)',
      ],
    ],
  );
  assert.deepEqual(
    contractPlan('segments').map((p) => p.backend.name),
    ['sqlite', 'postgres', 'mysql'],
    'nor for the ports it does not serve',
  );
});
