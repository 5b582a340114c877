import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { SKIP_BROWSER as SKIP, WHY_BROWSER_SKIPPED as WHY_SKIPPED, launchChromium, type Browser } from '../helpers/browser.js';

/** The reference page at /docs, rendered by a real browser (tests/helpers/browser.ts). */
if (SKIP) console.warn(`docs-browser.test.ts skipped: ${WHY_SKIPPED}`);

describe.skipIf(SKIP)(`the /docs reference page in Chromium${SKIP ? ` (skipped: ${WHY_SKIPPED})` : ''}`, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    app = await buildTestApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    base = `http://127.0.0.1:${address.port}`;
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the document: every tag a section, with its operations', async () => {
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${base}/docs`, { waitUntil: 'load' });
    await page.locator('.swagger-ui .opblock-tag-section').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('qrail');
    // qrail's page: its title, favicon and top-bar logo (not Swagger's).
    expect(await page.title()).toBe('qrail API reference');
    expect(await page.locator('link[rel="icon"]').first().getAttribute('type')).toBe('image/svg+xml');
    await expect.poll(async () => page.locator('.topbar-wrapper img').first().getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(await page.getByText('Unable to render this definition').count()).toBe(0);
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{ tags: { name: string }[]; paths: Record<string, Record<string, { tags?: string[] }>> }>();
    const tags = await page.locator('.swagger-ui .opblock-tag').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(doc.tags.map((t) => t.name));
    // Every operation of the document is on the page, under its tag.
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item)).length;
    expect(await page.locator('.swagger-ui .opblock').count()).toBe(operations);
    expect(failed).toEqual([]);
  }, 120_000);

  it('expands an operation to its parameters and typed responses', async () => {
    const op = page.locator('#operations-jobs-getAccountJob');
    await op.locator('.opblock-summary').click();
    const body = op.locator('.opblock-body');
    await body.waitFor({ timeout: 30_000 });
    // Swagger UI marks a required parameter with a non-breaking space and a star.
    await expect.poll(async () => (await body.locator('.parameters .parameter__name').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())).toContain('job_id *');
    const codes = await body.locator('.responses-table .response-col_status').allInnerTexts();
    expect(codes.map((c) => c.trim())).toEqual(expect.arrayContaining(['200', '401', '403', '404', '429']));
    // The success response shows its schema, not an empty object.
    expect(await body.locator('.responses-table').innerText()).toContain('receipt_reference');
  }, 60_000);
});
