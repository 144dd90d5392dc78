// Issue 32 §15: what the service answers to requests a probe found mishandled, over real
// sockets: a valid request followed by bytes that are not HTTP is answered (the routes minted
// and counted IDs, then answered 400 HPE_CLOSED_CONNECTION: never mint what is not answered);
// a Leaf route's failure of 500 or more is logged, as docs/service.md says every one is; a
// request target that is not a path (`GET * HTTP/1.1`) was routed to `/`, the dashboard.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { buildApp, openService, resolveConfig } from '../../packages/server/src/service/index.js';
import { assertShape, listeningService, parseAnswer, rawExchange } from '../helpers/raw-http.js';
import { openTestService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

/** The service's `idforge_ids_issued_total{scheme="snowflake"}`. */
async function issued(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^idforge_ids_issued_total\{scheme="snowflake"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe('a valid request, then bytes that are not HTTP, on one connection', () => {
  const current = listeningService();
  // With `layout` the request goes through the routes; without, the fast lane answers it.
  for (const [path, where] of [
    ['/v1/ids/snowflake?count=5&layout=default', 'the routes'],
    ['/v1/ids/snowflake?count=5', 'the fast lane'],
  ]) {
    test(`${where}: the request is answered with what was counted issued, then a 400 if the connection stays`, async () => {
      const { port } = current();
      for (const connection of ['close', 'keep-alive']) {
        const before = await issued(port);
        const head = `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: ${connection}\r\n\r\n`;
        const a = await rawExchange(port, `${head}XXXX not http\r\n\r\n`);
        const what = `${where}, Connection: ${connection}`;
        assert.equal(a.status, 200, `${what}: ${a.raw.slice(0, 300)}`);
        const ids = (JSON.parse(a.body) as { ids: string[] }).ids;
        assert.equal(ids.length, 5, what);
        assert.equal((await issued(port)) - before, 5, `${what}: counted what was answered`);
        const rest = parseAnswer(a.raw.slice(a.raw.indexOf(a.body) + a.body.length));
        if (connection === 'close') assert.equal(rest.status, 0, `${what}: nothing after`);
        else assertShape(rest, 400, ['IDF_BAD_REQUEST'], `${what}: then the garbage`);
      }
    });
  }
});

test('a request target that is not a path (GET *) is a 400, not the dashboard', async () => {
  const s = await openTestService();
  try {
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = s.app.server.address() as { port: number };
    for (const target of ['*', 'v1/status', '*/v1/ids/snowflake']) {
      const a = await rawExchange(
        port,
        `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      assertShape(a, 400, ['IDF_BAD_REQUEST'], `GET ${target}`);
      assert.doesNotMatch(a.body, /v1\/ids/, 'the target is not echoed');
    }
  } finally {
    await s.close();
  }
});

describe("a Leaf route's failure of status 500 or more is logged, on the lane as on the routes", () => {
  test('the node closed (its lease released): 500 text, and an error line naming the route and code', async () => {
    const t = tempDir('idforge-leaf-log-');
    const lines: Record<string, unknown>[] = [];
    const config = resolveConfig({
      file: {
        path: 'test settings',
        values: { store: `sqlite:${t.dir}/idforge.db`, maxEventLoopDelayMs: 0 },
      },
      env: {},
    });
    const write = (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>);
    const opened = await openService(config, { logger: pino({ level: 'info' }, { write }) });
    const lane = await buildApp(opened.deps);
    const plain = await buildApp(opened.deps, { fastLane: false });
    try {
      const urls = [
        await lane.listen({ host: '127.0.0.1', port: 0 }),
        await plain.listen({ host: '127.0.0.1', port: 0 }),
      ];
      await opened.deps.nodes.get(config.layout)?.close();
      for (const url of urls) {
        const before = lines.length;
        const r = await fetch(`${url}/api/snowflake/get/k`);
        assert.equal(r.status, 500, url);
        assert.match(await r.text(), /^IDF_NOT_READY: /);
        const logged = lines.slice(before).filter((l) => l.level === 50);
        assert.equal(logged.length, 1, `${url}: one error line (${JSON.stringify(lines)})`);
        assert.equal(logged[0]?.route, '/api/snowflake/get/:key');
        assert.equal(logged[0]?.code, 'IDF_NOT_READY');
      }
      assert.equal(lane.fastLane?.taken, 1, 'the lane answered its request');
    } finally {
      await lane.close();
      await plain.close();
      await opened.close();
      t.remove();
    }
  });
});
