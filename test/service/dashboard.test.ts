// The live dashboard as a person sees it, in Debian's headless Chromium against a real
// `idforge serve` process (sqlite store in a temp dir, an admin token, one sequence tag):
// while a load runs, the worker ID shows, the lease countdown ticks, the IDs-per-second figures
// move for Snowflake and the tag, the tag's two segment buffers show as bars; the inspector
// asks for a token, then decodes a Snowflake ID of this service (worker field and timestamp)
// and shows a readable error for garbage; the page logs no errors. Screenshots (light and
// dark) go to test-results/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { browserSkip, launchChromium, PAGE_POLL, textOf, watchPage } from '../helpers/browser.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'dashboard-test-admin-token-0123456789';
const WORKER = 7;
const TAG = 'orders';
const auth = { authorization: `Bearer ${TOKEN}` };

/** GETs `url` in a loop until `signal` aborts (at most 20,000 requests or 60 s); resolves with the count. */
async function load(url: string, signal: AbortSignal): Promise<number> {
  const deadline = Date.now() + 60_000;
  let n = 0;
  while (!signal.aborted && n < 20_000 && Date.now() < deadline) {
    const res = await fetch(url, { headers: auth });
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    n += 1;
  }
  return n;
}

/** Stops the service with SIGTERM and waits for it to exit (SIGKILL after 10 s). */
async function stop(p: ServiceProc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  await p.exited;
  clearTimeout(timer);
}

const skip = browserSkip();

test('the dashboard shows the live node and decodes IDs', { skip, timeout: 120_000 }, async () => {
  const t = tempDir('idforge-dash-');
  const db = `sqlite:${join(t.dir, 'idforge.db')}`;
  const svc = spawnService(['--store', db, '--sequences', db, '--workers', String(WORKER)], {
    IDFORGE_ADMIN_TOKEN: TOKEN,
  });
  const stopLoad = new AbortController();
  let loads: Promise<number>[] = [];
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    const url = await svc.ready;
    const created = await fetch(`${url}/v1/sequences/${TAG}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ step: 100 }),
    });
    assert.equal(created.status, 201, await created.text());

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    // The inspector's 401 and 400 answers are expected; Chromium logs each as a console error.
    const problems = watchPage(
      page,
      (msg, at) => /status of 40[01]/.test(msg) && at.startsWith(`${url}/v1/inspect/`),
    );
    await page.goto(url);
    assert.equal(await page.title(), 'idforge node');

    // The worker ID of this node's lease, and readiness.
    await waitFor(
      async () => (await textOf(page, '.worker-id')) === String(WORKER),
      'the worker ID',
      PAGE_POLL,
    );
    assert.equal(await textOf(page, '#readiness'), 'ready');

    // A load on Snowflake IDs and the tag; the rates, countdown and bars must move with it.
    loads = [
      load(`${url}/v1/ids/snowflake?count=100`, stopLoad.signal),
      load(`${url}/v1/ids/snowflake?count=100`, stopLoad.signal),
      load(`${url}/v1/sequences/${TAG}?count=50`, stopLoad.signal),
    ];
    for (const p of loads) p.catch(() => undefined);

    const countdown = async () => {
      const s = await textOf(page, '.lease-remaining');
      return /^\d+\.\d s$/.test(s) ? s : '';
    };
    const first = await waitFor(countdown, 'a lease countdown', PAGE_POLL);
    await waitFor(
      async () => {
        const s = await countdown();
        return s !== '' && s !== first;
      },
      'the lease countdown to tick',
      PAGE_POLL,
    );

    const rate = async (series: string) =>
      Number((await textOf(page, `[data-series="${series}"] .rate`)).replace(/,/g, ''));
    const snowRate = await waitFor(() => rate('snowflake'), 'a Snowflake rate above 0', PAGE_POLL);
    await waitFor(() => rate(`seq ${TAG}`), `a rate for seq ${TAG} above 0`, PAGE_POLL);
    await waitFor(
      async () => {
        const now = await rate('snowflake');
        return now > 0 && now !== snowRate;
      },
      'the Snowflake rate to change',
      PAGE_POLL,
    );

    // The tag's two buffers: the current one partly drained, the next one there or loading.
    const current = await waitFor(
      () =>
        page.evaluate((tag) => {
          const box = document.querySelector(`.tag[data-tag="${tag}"]`);
          const meters =
            box === null ? [] : Array.from(box.querySelectorAll('.buffer [role="meter"]'));
          const fill = meters[0]?.querySelector('span')?.getBoundingClientRect().width ?? 0;
          const label = box?.querySelector('.buffer.current .label')?.textContent ?? '';
          return meters.length === 2 && fill > 0 && /^current \d+–\d+: [\d,]+ left$/.test(label)
            ? label
            : null;
        }, TAG),
      `two segment bars for ${TAG}`,
      PAGE_POLL,
    );
    await waitFor(
      async () => {
        const label = await textOf(page, `.tag[data-tag="${TAG}"] .buffer.current .label`);
        return label !== '' && label !== current;
      },
      `the ${TAG} buffer to drain or swap`,
      PAGE_POLL,
    );

    stopLoad.abort();
    const counts = await Promise.all(loads);
    assert.ok(
      counts.every((n) => n > 0),
      `every load loop ran (${counts.join(', ')})`,
    );

    // The inspector: without the token the service refuses and the page says why.
    const res = await fetch(`${url}/v1/ids/snowflake?count=1`, { headers: auth });
    const id = ((await res.json()) as { ids: string[] }).ids[0] as string;
    const alert = () => textOf(page, '#inspect-out [role="alert"]');
    await page.fill('#inspect-id', id);
    await page.click('#inspect-form button');
    await waitFor(
      async () => /needs a token/.test(await alert()),
      'the missing-token message',
      PAGE_POLL,
    );

    await page.fill('#token', TOKEN);
    await page.click('#inspect-form button');
    await waitFor(
      async () => (await textOf(page, '#inspect-out .field-node')) !== '',
      'the decoded Snowflake',
      PAGE_POLL,
    );
    assert.equal(await textOf(page, '#inspect-out .field-scheme'), 'snowflake');
    assert.equal(
      await textOf(page, '#inspect-out .field-node'),
      String(WORKER),
      'the worker field',
    );
    const ts = await textOf(page, '#inspect-out .field-timestamp');
    assert.ok(Math.abs(Date.parse(ts) - Date.now()) < 60_000, `timestamp ${ts} is now`);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('idforge.token')), TOKEN);
    assert.ok(!page.url().includes(TOKEN), 'the token is not in the URL');

    await page.fill('#inspect-id', 'not an id/?#');
    await page.click('#inspect-form button');
    assert.match(
      await waitFor(alert, 'the error for garbage', PAGE_POLL),
      /invalid identifier: cannot tell the scheme/,
    );

    await page.fill('#inspect-id', id);
    await page.click('#inspect-form button');
    await waitFor(
      async () => (await textOf(page, '#inspect-out .field-node')) !== '',
      'the decoded ID again',
      PAGE_POLL,
    );

    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/dashboard.png', fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await waitFor(
      () =>
        page.evaluate(() => getComputedStyle(document.body).backgroundColor === 'rgb(13, 17, 23)'),
      'the dark scheme',
      PAGE_POLL,
    );
    await page.screenshot({ path: 'test-results/dashboard-dark.png', fullPage: true });

    assert.equal(await textOf(page, '#readiness'), 'ready', 'the status polls never failed');
    assert.deepEqual(problems.errors, [], 'no page or console errors');
  } finally {
    stopLoad.abort();
    await Promise.allSettled(loads);
    await browser?.close();
    await stop(svc);
    t.remove();
  }
});
