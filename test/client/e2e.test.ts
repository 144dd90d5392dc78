// The client against real `idforge serve` processes: three nodes on one shared store, an
// application loop drawing Snowflake IDs, UUIDv7 batches and sequence numbers through one
// client while a node is SIGKILLed mid-run. The application sees no error and no duplicate.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createClient } from '../../packages/idforge/src/client/index.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'e2e-admin-token-0123456789abcdef';
const dir = tempDir('idforge-client-e2e-');
const store = `sqlite:${join(dir.dir, 'shared.db')}`;
const procs: ServiceProc[] = [];

before(async () => {
  const args = ['--store', store, '--ttl-ms', '3000', '--max-event-loop-delay-ms', '0'];
  for (let i = 0; i < 3; i++)
    procs.push(spawnService(args, { IDFORGE_ADMIN_TOKEN: TOKEN }, dir.dir));
  const urls = await Promise.all(procs.map((p) => p.ready));
  const created = await fetch(`${urls[0]}/v1/sequences/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ step: 500 }),
  });
  assert.equal(created.status, 201, await created.text());
});

after(async () => {
  for (const p of procs) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  dir.remove();
});

test('a node SIGKILLed mid-run: no error reaches the application, no duplicate', async () => {
  const client = createClient({
    urls: procs.map((p) => p.url),
    token: TOKEN,
    segmentSize: 200,
    timeoutMs: 5000,
  });
  const snowflakes: string[] = [];
  const uuids: string[] = [];
  const numbers: bigint[] = [];
  const orders = client.sequence('orders');
  let killed = false;
  let stop = false;
  const app = async () => {
    while (!stop) {
      snowflakes.push(await client.next('snowflake'));
      uuids.push(...(await client.batch('uuidv7', 10)));
      for (let i = 0; i < 50; i++) numbers.push(orders.tryNext() ?? (await orders.next()));
    }
  };
  const loops = [app(), app(), app(), app()];
  try {
    // Kill a node once the load is running on all three, then keep going as long again.
    await waitFor(() => snowflakes.length >= 300, '300 Snowflake IDs before the kill');
    const victim = procs[1] as ServiceProc;
    victim.child.kill('SIGKILL');
    await victim.exited;
    killed = true;
    const before = snowflakes.length;
    await waitFor(() => snowflakes.length >= before + 300, '300 more Snowflake IDs after the kill');
  } finally {
    stop = true;
    await Promise.all(loops);
    client.close();
  }
  assert.ok(killed);
  assert.ok(snowflakes.length >= 600, `${snowflakes.length} Snowflake IDs`);
  assert.equal(new Set(snowflakes).size, snowflakes.length, 'Snowflake IDs are unique');
  assert.equal(new Set(uuids).size, uuids.length, 'UUIDv7s are unique');
  assert.equal(new Set(numbers).size, numbers.length, 'sequence numbers are unique');
  const workers = new Set(snowflakes.map((id) => Number((BigInt(id) >> 12n) & 1023n)));
  assert.equal(workers.size, 3, `IDs came from the three nodes (worker IDs ${[...workers]})`);
  const down = client.stats().servers.find((s) => s.url === procs[1]?.url);
  assert.ok(down !== undefined && down.failures > 0, 'the client saw the killed node fail');
});
