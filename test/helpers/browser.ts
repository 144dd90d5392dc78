// Debian's Chromium driven by playwright-core, for the dashboard test. Playwright's own browser
// download cannot work here (no internet); scripts/services/chromium.sh installs the Debian
// package, which `npm test` and .ci/run do. Without it the browser tests skip with a one-line
// reason, or fail under IDFORGE_REQUIRE_SERVICES=1.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { requireServices } from './services.js';
import type { WaitOptions } from './wait.js';

/** The Chromium binary: $IDFORGE_CHROMIUM, else Debian's /usr/bin/chromium. */
export const chromiumPath = process.env.IDFORGE_CHROMIUM || '/usr/bin/chromium';

/**
 * A skip reason when Chromium is missing and not required; false when it is there.
 * Throws when it is missing and IDFORGE_REQUIRE_SERVICES=1.
 */
export function browserSkip(): string | false {
  if (existsSync(chromiumPath)) return false;
  const reason = `Chromium is not installed at ${chromiumPath} (scripts/services/chromium.sh installs it)`;
  if (requireServices) throw new Error(`${reason}, and IDFORGE_REQUIRE_SERVICES=1 requires it`);
  return `${reason}; set IDFORGE_REQUIRE_SERVICES=1 to make this a failure`;
}

/**
 * Headless Chromium with a new empty profile (Playwright's launch() makes a fresh temporary
 * user-data dir and deletes it on close). The flags keep it off the network: without them it
 * tries Google's hosts at start, which this machine refuses.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What went wrong in a page: uncaught exceptions and console errors, as text. */
export interface PageProblems {
  readonly errors: string[];
}

/**
 * Records the page's uncaught exceptions and console errors. `expected(text, url)` returns true
 * for a console error the test causes on purpose (Chromium logs every HTTP error response of a
 * fetch as "Failed to load resource: ... status of 400"), which is then not recorded.
 */
export function watchPage(
  page: Page,
  expected: (text: string, url: string) => boolean = () => false,
): PageProblems {
  const problems: PageProblems = { errors: [] };
  page.on('pageerror', (e) => problems.errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (expected(m.text(), m.location().url)) return;
    problems.errors.push(`console error: ${m.text()} (${m.location().url})`);
  });
  return problems;
}

/** The trimmed text of the first element matching `selector`, or '' when there is none. */
export function textOf(page: Page, selector: string): Promise<string> {
  return page.evaluate((sel) => document.querySelector(sel)?.textContent?.trim() ?? '', selector);
}

/**
 * How test/helpers/wait.ts's waitFor polls a page: every 100 ms, up to 15 s. (Checks run here,
 * in Node, reading the page through Playwright: a function sent to the page must not call
 * helpers of this module.)
 */
export const PAGE_POLL: WaitOptions = { ms: 15_000, everyMs: 100 };
