// Issue 24 §1: the dashboard of an `idforge serve --processes 2` node, in Debian's headless
// Chromium: a Processes table with one row per process (its pid, its own worker ID, ready, the
// IDs it issued), the header naming the count, and the page logging no errors.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { browserSkip, launchChromium, PAGE_POLL, textOf, watchPage } from '../helpers/browser.js';
import { spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const skip = browserSkip();

test('the dashboard of a two-process node shows each process', {
  skip,
  timeout: 120_000,
}, async () => {
  const t = tempDir('idforge-dash-procs-');
  const svc = spawnService(['--store', `sqlite:${join(t.dir, 'idforge.db')}`, '--processes', '2']);
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    const url = await svc.ready;
    await waitFor(
      () => svc.logs.some((l) => /^2 processes listening/.test(String(l.msg))),
      'both processes',
      60_000,
    );
    for (let i = 0; i < 20; i++)
      await (await fetch(`${url}/v1/ids/snowflake?count=10`)).arrayBuffer();
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const problems = watchPage(page);
    await page.goto(url);
    const rows = () =>
      page.evaluate(() =>
        Array.from(document.querySelectorAll('#processes tbody tr')).map((tr) =>
          Array.from(tr.children).map((td) => td.textContent ?? ''),
        ),
      );
    const seen = await waitFor(
      async () => {
        const r = await rows();
        return r.length === 2 && r.every((c) => c[3] === 'ready') ? r : null;
      },
      'two ready process rows',
      PAGE_POLL,
    );
    assert.deepEqual(
      seen.map((c) => c[0]),
      ['0', '1'],
    );
    assert.notEqual(seen[0]![2], seen[1]![2], 'each process its own worker ID');
    assert.ok(seen.every((c) => /^default \d+$/.test(c[2]!)));
    assert.match(await textOf(page, '#node-name'), / · 2 processes · /);
    assert.equal(await textOf(page, '#readiness'), 'ready');
    assert.deepEqual(problems.errors, []);
  } finally {
    await browser?.close();
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exited, 0, svc.stderr);
    t.remove();
  }
});
