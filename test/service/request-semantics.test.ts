// Issue 32 §15: what the service answers to requests a probe found mishandled, over real
// sockets: a valid request followed by bytes that are not HTTP is answered (the routes minted
// and counted IDs, then answered 400 HPE_CLOSED_CONNECTION: never mint what is not answered).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertShape,
  listeningService,
  parseAnswer,
  rawExchange,
} from '../regressions/issue-19-http.js';

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
