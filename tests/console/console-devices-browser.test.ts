import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { SKIP_BROWSER, WHY_BROWSER_SKIPPED, freePort, launchChromium, type Browser, pageCollectingErrors } from '../helpers/browser.js';
import { FakeIbmRuntime, defaultIbmScript, ibmFakeEnv, FAKE_BACKEND } from '../execution/fakes/ibm-runtime-fake.js';
import { faultyFezExcerpt } from '../execution/fakes/fez-excerpt.js';
import { FakeIonq, fakeIonqEnv } from '../execution/fakes/ionq-v04-fake.js';

/**
 * The console's device pages with live providers behind them (issue #35, Must show): IonQ (the v0.4
 * fake: its systems from GET /backends) and IBM Quantum (the Runtime fake serving qubits 0–4 of
 * IBM's recorded ibm_fez, qubit 4 and pair 0–1 faulty). What a person sees on each card: the
 * provider's system it runs on, the provider's status, the faulty parts, and the error mitigation
 * the device offers (readout from whose calibration, ZNE, IonQ's debiasing) or why not. axe-core
 * finds no serious or critical violation; screenshots in artifacts/console-screenshots/.
 */
const SHOTS = join(process.cwd(), 'artifacts', 'console-screenshots');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function seriousAccessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: object) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations;
  });
  return (violations as Array<{ id: string; impact: string | null; help: string }>).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

describe.skipIf(SKIP_BROWSER)(`the console's device pages with live providers${SKIP_BROWSER ? ` (skipped: ${WHY_BROWSER_SKIPPED})` : ''}`, () => {
  const ionq = new FakeIonq();
  const ibm = new FakeIbmRuntime();
  let app: App;
  let browser: Browser;
  let page: Page;
  let base: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    await ionq.start();
    await ibm.start();
    ibm.script = { ...defaultIbmScript(), device: faultyFezExcerpt() };
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ ...fakeIonqEnv(ionq), ...ibmFakeEnv(ibm), PUBLIC_BASE_URL: base });
    const refreshed = await app.services.snapshotRefresher.refreshAll();
    expect(refreshed.map((r) => [r.provider, r.ok]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['provider-one', true],
      ['provider-two', true],
    ]);
    await app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    page = await pageCollectingErrors(browser, consoleErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await ionq.close();
    await ibm.close();
  });

  const card = (id: string): Locator => page.locator('article.device').filter({ has: page.locator('code', { hasText: new RegExp(`^${id}$`) }) });
  const lines = async (c: Locator) => (await c.getByRole('list', { name: 'Error mitigation' }).getByRole('listitem').allInnerTexts()).map((t) => t.trim());

  it('shows each device’s live system, status and the mitigation it offers', async () => {
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'New here? Create an account' }).click();
    await page.getByLabel('Email').fill(`devices.${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click();

    // IonQ: the system IONQ_TARGET names, as IonQ's GET /backends reports it; debiasing is IonQ's to apply.
    const ionqCard = card('p2-ionq-qpu');
    await ionqCard.waitFor({ timeout: 30_000 });
    expect(await ionqCard.getByTestId('backend').innerText()).toMatch(/^Runs on qpu\.forte-1\.?$/);
    expect(await ionqCard.innerText()).toContain('IonQ reports qpu.forte-1 available');
    // Every system IonQ's GET /backends lists (the retired Aria is not among them), this device's marked.
    expect((await ionqCard.getByRole('list', { name: 'Provider systems' }).getByRole('listitem').allInnerTexts()).map((t) => t.trim())).toEqual([
      'qpu.forte-1 online 36 qubits (this device)',
      expect.stringMatching(/^qpu\.forte-enterprise-1 online \d+ qubits$/),
      'simulator online 29 qubits',
    ]);
    expect(await lines(ionqCard)).toEqual([
      expect.stringMatching(/^Readout mitigation: not offered — .+/),
      expect.stringMatching(/^Zero-noise extrapolation: not offered — .+/),
      'IonQ debiasing: offered (applied by IonQ, 500 shots or more)',
    ]);

    // IBM: the mapped backend, IBM's status and queue, the faulty parts, readout from IBM's per-qubit calibration.
    const ibmCard = card('p1-falcon-7');
    await ibmCard.waitFor({ timeout: 30_000 });
    expect(await ibmCard.getByTestId('backend').innerText()).toBe(`Runs on ${FAKE_BACKEND}, 17 jobs waiting at the provider; never routed over the faulty qubit 4, pair 0–1.`);
    expect(await ibmCard.innerText()).toContain(`IBM Quantum reports ${FAKE_BACKEND} active`);
    expect((await ibmCard.getByRole('list', { name: 'Provider systems' }).getByRole('listitem').allInnerTexts()).map((t) => t.trim())).toEqual([`${FAKE_BACKEND} online 5 qubits (this device)`]);
    const ibmLines = await lines(ibmCard);
    expect(ibmLines[0]).toMatch(/^Readout mitigation: offered \(provider per-qubit calibration of .+\)$/);
    expect(ibmLines.slice(1)).toEqual(['Zero-noise extrapolation: offered (expectation values)', expect.stringMatching(/^IonQ debiasing: not offered — .+/)]);

    // An emulated device: readout from the deployment's calibration; no provider system.
    const grid = card('p2-grid-9');
    expect(await grid.getByTestId('backend').count()).toBe(0);
    expect((await lines(grid))[0]).toMatch(/^Readout mitigation: offered \(deployment per-qubit calibration of .+\)$/);
    // Simulators take no mitigation: no list on their cards.
    expect(await card('p2-local-simulator').getByRole('list', { name: 'Error mitigation' }).count()).toBe(0);

    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'devices-live-1280.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
  }, 120_000);
});
