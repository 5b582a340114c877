import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * A real browser for page tests: Debian's Chromium driven by playwright-core (no browser
 * download). Without Chromium a test is skipped on a developer machine and fails under CI=true,
 * where .ci/run installs it.
 */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = (process.env['CI'] ?? '') !== '' && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
export const SKIP_BROWSER = !HAVE_CHROMIUM && !IN_CI;
export const WHY_BROWSER_SKIPPED = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH); under CI=true this is a failure`;

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport: { width: number; height: number } = { width: 1280, height: 800 }): Promise<Browser> {
  if (!HAVE_CHROMIUM) throw new Error(`CI is set and there is no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium`);
  const profileDir = mkdtempSync(join(tmpdir(), 'qrail-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/** A free TCP port on 127.0.0.1 (for an app whose public base URL must name its port before it listens). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** The browser's first page, with every console error and uncaught page error pushed to `errors` (tests expect none). */
export async function pageCollectingErrors(browser: Browser, errors: string[]): Promise<Page> {
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}
