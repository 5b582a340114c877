import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { SKIP_BROWSER, WHY_BROWSER_SKIPPED, freePort, launchChromium, type Browser, pageCollectingErrors } from '../helpers/browser.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';

/**
 * The web console in Chromium, end to end against a live app: register, top up through the
 * sandbox checkout, create a key, a paid job submitted through the API seen completing with its
 * histogram, the optimizable example optimized with before/after diagrams, a hardware quote held
 * and released. axe-core on every page (no serious or critical violation), no console errors,
 * and a screenshot of every page at desktop and phone sizes in artifacts/console-screenshots/.
 */
const SHOTS = join(process.cwd(), 'artifacts', 'console-screenshots');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // The page's own globals: this test's tsconfig has no DOM types.
    const axe = (globalThis as unknown as { axe: { run: (o: object) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations;
  });
  return (violations as AxeViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Every data table of the page as text (not the chart library’s legend, a key laid out as a table): its column headings and, per body row, its cells (a colspan repeats the cell). */
const TABLES_SCRIPT = `[...document.querySelectorAll('table:not(.u-legend)')].map((t) => ({
  label: (t.querySelector('caption')?.textContent ?? t.getAttribute('aria-label') ?? t.outerHTML.slice(0, 160)).trim(),
  headings: [...t.querySelectorAll('thead tr:last-child th')].map((th) => th.textContent.trim()),
  rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].flatMap((c) => Array(c.colSpan || 1).fill(c.textContent.trim()))),
}))`;
interface TableText {
  label: string;
  headings: string[];
  rows: string[][];
}
/** Each amount cell of the ledger with the number of line boxes its text takes. */
const AMOUNT_LINES_SCRIPT = `[...document.querySelectorAll('table td.num')].map((td) => {
  const r = document.createRange();
  r.selectNodeContents(td);
  return { text: td.textContent, lines: new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size };
})`;
const tablesOf = async (page: Page) => page.evaluate<TableText[]>(TABLES_SCRIPT);

/** Clicks a download link and answers the downloaded file's text. */
async function downloaded(page: Page, name: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
  const path = await download.path();
  return readFileSync(path, 'utf8');
}

/** Headings against cells, for every table of the page: each body row has one cell per heading. */
async function tableProblems(page: Page): Promise<string[]> {
  return (await tablesOf(page)).flatMap((t) =>
    t.headings.length === 0
      ? [`table "${t.label}" has no column headings`]
      : t.rows.filter((r) => r.length !== t.headings.length).map((r) => `table "${t.label}": ${t.headings.length} headings (${t.headings.join(' | ')}) but ${r.length} cells (${r.join(' | ')})`),
  );
}

describe.skipIf(SKIP_BROWSER)(`the web console in Chromium${SKIP_BROWSER ? ` (skipped: ${WHY_BROWSER_SKIPPED})` : ''}`, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let base: string;
  const consoleErrors: string[] = [];
  const a11y: Record<string, string[]> = {};

  const check = async (name: string) => {
    a11y[name] = await accessibilityProblems(page);
    expect(await tableProblems(page), name).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  };
  const nav = async (label: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ PUBLIC_BASE_URL: base });
    for (const w of app.services.workers) w.start();
    await app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    page = await pageCollectingErrors(browser, consoleErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (app !== undefined) {
      for (const w of app.services.workers) await w.stop();
      await expectLedgerInvariants(app);
      await app.close();
    }
  });

  it('serves the console at /console/ and sends browsers from / there', async () => {
    const r = await fetch(`${base}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/console/');
    const api = await fetch(`${base}/`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    const shell = await fetch(`${base}/console/jobs/account/x`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await shell.text()).toContain('<div id="app">');
  });

  it('registers, tops up through the sandbox checkout, and shows the wallet', async () => {
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await check('sign-in');
    await page.getByRole('button', { name: 'New here? Create an account' }).click();
    await page.getByLabel('Email').fill(`console.${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
    await expect.poll(() => page.getByTestId('available').innerText()).toBe('$0.00');
    await page.getByLabel('Top-up amount (USD)').fill('25.00');
    await page.getByRole('button', { name: 'Top up' }).click();
    // The sandbox processor's own checkout page, then back to the wallet.
    await page.waitForURL(/\/v1\/billing\/processor\/sandbox\/checkout\//);
    await page.locator('form button[type=submit], form input[type=submit]').first().click();
    await page.waitForURL(/\/console\/wallet\?checkout=/);
    await expect.poll(() => page.getByTestId('available').innerText(), { timeout: 20_000 }).toBe('$25.00');
    await page.getByRole('cell', { name: 'topup' }).first().waitFor();
    await check('wallet');
    // At phone width an amount stays on one line (the table scrolls instead): its text is one line box.
    await page.setViewportSize({ width: 390, height: 844 });
    const amounts = await page.evaluate<{ text: string; lines: number }[]>(AMOUNT_LINES_SCRIPT);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(amounts.length).toBeGreaterThan(0);
    expect(amounts.filter((a) => a.lines !== 1)).toEqual([]);
  }, 120_000);

  it('creates an API key, and a job the key submits is seen completing with its histogram', async () => {
    await nav('API keys');
    await page.getByLabel('Name').fill('browser-agent');
    await page.getByRole('button', { name: 'Create credential' }).click();
    const secret = (await page.getByTestId('secret').innerText()).trim();
    expect(secret).toMatch(/^qrj_/);
    await check('keys');
    const submit = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        capability_id: 'circuit.simulate',
        idempotency_key: 'console-bell-1',
        max_total_price: '0.01',
        tags: { team: 'console' },
        request: {
          shots: 1000,
          seed: 11,
          circuit: bell,
        },
      }),
    });
    expect(submit.status).toBe(202);
    const jobId = ((await submit.json()) as { job_id: string }).job_id;
    // And a run on the simulator with the person's session: execution jobs share the list.
    const stored = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('qrail.session') ?? '{}');
    const run = await fetch(`${base}/v1/execute/provider-one`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(JSON.parse(stored) as { token: string }).token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_token: 'console-run-1',
        shots: 100,
        circuit: { schema: '0.2', num_qubits: 1, num_clbits: 1, gates: [{ op: 'x', qubits: [0] }], measurements: [{ qubit: 0, clbit: 0 }] },
      }),
    });
    expect(run.status).toBeLessThan(300);
    const runId = ((await run.json()) as { data: { job_id: string } }).data.job_id;
    await nav('Jobs');
    const runRow = page.getByRole('row', { name: new RegExp(runId.slice(0, 8)) });
    await expect.poll(() => runRow.innerText(), { timeout: 60_000 }).toMatch(/execution[\s\S]*completed/);
    const row = page.getByRole('row', { name: new RegExp(jobId.slice(0, 8)) });
    // The list updates itself while the job moves: no reload.
    await expect.poll(() => row.innerText(), { timeout: 60_000 }).toContain('completed');
    await check('jobs');
    // Each column holds its kind of value, for both kinds of job.
    const [jobsTable] = await tablesOf(page);
    expect(jobsTable?.headings).toEqual(['Job', 'Kind', 'Capability or device', 'Status', 'Price', 'Submitted']);
    const columns: RegExp[] = [
      /^[0-9a-f]{8}$/,
      /^(Account Job|execution)$/,
      /^(circuit\.[a-z_.]+|provider-(one|two) · \S+)$/,
      /^(queued|running|completed|failed|held|released|expired)\b/,
      /^(\$[\d,]+\.\d+|—)$/,
      /\d{1,2}:\d\d/,
    ];
    expect(jobsTable?.rows.length).toBeGreaterThanOrEqual(2);
    for (const r of jobsTable?.rows ?? []) r.forEach((cell, i) => expect(cell, `${jobsTable?.headings[i]} of ${r.join(' | ')}`).toMatch(columns[i]!));
    await row.getByRole('link').click();
    await page.getByRole('img', { name: /Histogram of 2 outcomes over 1000 shots/ }).waitFor();
    expect(await page.locator('figcaption').first().innerText()).toContain('clbit 0 rightmost');
    expect(await page.getByTestId('charged').innerText()).toBe('$0.00011');
    expect(await page.getByRole('list', { name: 'Tags' }).innerText()).toBe('team:console');
    // A completed job offers no cancel.
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    await check('job');
    // The result downloads from the Account Job page: the counts as CSV add up to the shots.
    const csv = (await downloaded(page, 'Download counts (CSV)')).trim().split('\n');
    expect(csv[0]).toBe('outcome,count');
    expect(csv.slice(1).reduce((n, line) => n + Number(line.split(',')[1]), 0)).toBe(1000);
    const json = JSON.parse(await downloaded(page, 'Download result (JSON)')) as { shots: number };
    expect(json.shots).toBe(1000);
  }, 120_000);

  it('optimizes the optimizable example with before and after diagrams and the proof', async () => {
    await nav('Circuits');
    await page.getByRole('button', { name: 'Load the “optimizable” example' }).click();
    await expect.poll(() => page.getByLabel('OpenQASM 2 / 3 or wire-format JSON').inputValue()).toContain('"optimizable"');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByRole('img', { name: 'Circuit diagram' }).waitFor();
    await page.getByRole('button', { name: 'Optimize' }).click();
    await page.getByRole('img', { name: 'Circuit after optimization' }).waitFor({ timeout: 60_000 });
    await page.getByRole('img', { name: 'Circuit before optimization' }).waitFor();
    expect(await page.getByTestId('after-total').innerText()).toBe('4');
    expect(await page.getByText(/Proof: verified/).count()).toBe(1);
    await check('circuits');
    // A broken circuit: the API's problems at their line.
    await page.getByLabel('OpenQASM 2 / 3 or wire-format JSON').fill('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nfoo q[0];');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByRole('list', { name: 'Problems' }).waitFor();
    expect(await page.getByRole('list', { name: 'Problems' }).innerText()).toMatch(/line 4/);
  }, 120_000);

  it('quotes, holds and releases a hardware run from the device page', async () => {
    await nav('Devices');
    // The first device that offers a hardware run (an emulated one in the embedded default).
    const offering = page
      .locator('article.device')
      .filter({ has: page.getByRole('button', { name: 'Quote and run…' }) })
      .first();
    await offering.waitFor({ timeout: 30_000 });
    // Pinned by its heading: once opened, the card no longer shows the button that found it.
    const card = page.locator(`article.device[aria-labelledby="${await offering.getAttribute('aria-labelledby')}"]`);
    expect(await card.getByRole('button', { name: 'Quote and run…' }).isEnabled()).toBe(true);
    await card.getByRole('button', { name: 'Quote and run…' }).click();
    await card.getByRole('button', { name: 'Get a quote' }).click();
    await card.getByRole('button', { name: /^Hold \$/ }).click();
    await expect.poll(() => card.getByTestId('hold-status').innerText()).toBe('held');
    expect(await card.getByTestId('countdown').innerText()).toMatch(/\d+:\d\d left/);
    await check('devices');
    await card.getByRole('button', { name: 'Release the hold' }).click();
    await expect.poll(() => card.getByTestId('hold-status').innerText()).toBe('released');
  }, 120_000);

  it('says why each device can or cannot run, with T1/T2 in scaled units', async () => {
    await nav('Jobs');
    await nav('Devices');
    await page.locator('article.device').first().waitFor();
    for (const card of await page.locator('article.device').all()) {
      const why = (await card.getByTestId('readiness').innerText()).trim();
      const button = card.getByRole('button', { name: 'Quote and run…' });
      if ((await button.count()) > 0 && !(await button.isEnabled())) expect(why).toMatch(/^Not available: .+/);
      else expect(why).toMatch(/^(Ready|Not available: .+)/);
      const t = card.getByTestId('t1-t2');
      if ((await t.count()) > 0) expect(await t.innerText()).toMatch(/^(—|\d+(\.\d+)? (µs|ms|s)) \/ (—|\d+(\.\d+)? (µs|ms|s))$/);
    }
    for (const item of await page.getByRole('list', { name: 'Provider one devices' }).getByRole('listitem').all()) expect(await item.innerText()).toMatch(/ (ready|not ready: .+)$/);
  }, 60_000);

  it('runs a held job and its page shows the finished result without a reload', async () => {
    const offering = page
      .locator('article.device')
      .filter({ has: page.getByRole('button', { name: 'Quote and run…' }) })
      .first();
    await offering.waitFor({ timeout: 30_000 });
    const card = page.locator(`article.device[aria-labelledby="${await offering.getAttribute('aria-labelledby')}"]`);
    await card.getByRole('button', { name: 'Quote and run…' }).click();
    await card.getByLabel('Shots').fill('50');
    await card.getByRole('button', { name: 'Get a quote' }).click();
    await card.getByRole('button', { name: /^Hold \$/ }).click();
    await expect.poll(() => card.getByTestId('hold-status').innerText()).toBe('held');
    await card.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/\/console\/jobs\/execution\//);
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    await expect.poll(() => page.getByTestId('execution-status').innerText(), { timeout: 60_000 }).toBe('completed');
    await page.getByRole('img', { name: /Histogram of \d+ outcomes over 50 shots/ }).waitFor();
    expect(loads).toEqual([]);
    // The result downloads from the job page too.
    const csv = await downloaded(page, 'Download counts (CSV)');
    expect(csv.split('\n')[0]).toBe('outcome,count');
  }, 120_000);

  it('runs the editor circuit on the simulator, shows its histogram and downloads it as JSON and CSV', async () => {
    await nav('Circuits');
    await page.getByLabel('OpenQASM 2 / 3 or wire-format JSON').fill('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;');
    await page.getByLabel('Shots').fill('200');
    await page.getByRole('button', { name: 'Run on simulator' }).click();
    await page.getByRole('img', { name: 'Histogram of 2 outcomes over 200 shots' }).waitFor({ timeout: 60_000 });
    const json = JSON.parse(await downloaded(page, 'Download result (JSON)')) as { shots: number; counts: Record<string, number> };
    expect(json.shots).toBe(200);
    expect(Object.keys(json.counts).sort()).toEqual(['00', '11']);
    const csv = (await downloaded(page, 'Download counts (CSV)')).trim().split('\n');
    expect(csv[0]).toBe('outcome,count');
    expect(csv.slice(1).sort()).toEqual(
      Object.entries(json.counts)
        .map(([k, n]) => `${k},${n}`)
        .sort(),
    );
    // The method: auto by default (a Bell circuit is Clifford: the stabilizer, with the reason shown), or the one picked.
    await page.getByText('Method: stabilizer').waitFor();
    await page.getByLabel('Simulation method').selectOption('density_matrix');
    await page.getByRole('button', { name: 'Run on simulator' }).click();
    await page.getByText('Method: density_matrix').waitFor({ timeout: 60_000 });
    await check('circuits-run');
  }, 120_000);

  it('sends an ended session back to sign-in and returns to the page afterwards', async () => {
    // From a page that does not poll: the Jobs page's refresh would meet the 401 before the click below.
    await nav('API keys');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const stored = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('qrail.session') ?? '{}');
    const { token, email } = JSON.parse(stored) as { token: string; email: string };
    expect((await fetch(`${base}/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBeLessThan(300);
    await nav('Wallet');
    await page.getByText('Your session has ended').waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
  }, 60_000);

  it('has no serious accessibility violation and no console error on any page', () => {
    expect(Object.keys(a11y).sort()).toEqual(['circuits', 'circuits-run', 'devices', 'job', 'jobs', 'keys', 'sign-in', 'wallet']);
    expect(a11y).toEqual(Object.fromEntries(Object.keys(a11y).map((k) => [k, []])));
    // The 401 of the ended session is the one expected error the browser logs for a failed request.
    expect(consoleErrors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
