import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { PASSWORD, buildTestApp, signUp, verifyEmail, createOrg } from '../helpers/app.js';
import { SKIP_BROWSER, WHY_BROWSER_SKIPPED, freePort, launchChromium, type Browser, pageCollectingErrors } from '../helpers/browser.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * The console's organization pages in Chromium against a live app (run `node scripts/build-console.js`
 * first): switching organization changes the wallet shown; the Organization page's members table
 * has a cell under every heading; an invitation sent from the form is in the pending list; a role
 * changed in the table appears in the audit log, filtered and downloaded as CSV; limits edited in the
 * table are shown there; a member removed after the confirmation leaves the table; an organization
 * created from the form is the one acted in and is in the switcher.
 */
const TABLES_SCRIPT = `[...document.querySelectorAll('table:not(.u-legend)')].map((t) => ({
  label: (t.querySelector('caption')?.textContent ?? t.getAttribute('aria-labelledby') ?? t.outerHTML.slice(0, 160)).trim(),
  headings: [...t.querySelectorAll('thead tr:last-child th')].map((th) => th.textContent.trim()),
  rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].flatMap((c) => Array(c.colSpan || 1).fill(c.textContent.trim()))),
}))`;
interface TableText {
  label: string;
  headings: string[];
  rows: string[][];
}
const tablesOf = async (page: Page) => page.evaluate<TableText[]>(TABLES_SCRIPT);

describe.skipIf(SKIP_BROWSER)(`the console's organization pages in Chromium${SKIP_BROWSER ? ` (skipped: ${WHY_BROWSER_SKIPPED})` : ''}`, () => {
  let app: App;
  let browser: Browser;
  let page: Page;
  let base: string;
  let owner: User;
  let invitee: User;
  let orgId: string;
  const consoleErrors: string[] = [];

  const verify = (u: User) => verifyEmail(app, u);
  const table = async (headingsStart: string) => {
    const t = (await tablesOf(page)).find((x) => x.headings[0] === headingsStart && x.label.length > 0);
    if (t === undefined) throw new Error(`no table starting with ${headingsStart}`);
    return t;
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ PUBLIC_BASE_URL: base });
    for (const w of app.services.workers) w.start();
    await app.listen({ port, host: '127.0.0.1' });
    owner = await signUp(app);
    invitee = await signUp(app);
    await Promise.all([verify(owner), verify(invitee)]);
    // Money in the personal wallet only; the team's starts empty.
    const pay = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: owner.auth, payload: { amount: '5.00', payment_method: 'pm_card_visa' } });
    expect(pay.statusCode, pay.body).toBe(200);
    orgId = await createOrg(app, owner.auth, 'Browser Lab');
    browser = await launchChromium();
    page = await pageCollectingErrors(browser, consoleErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (app !== undefined) {
      for (const w of app.services.workers) await w.stop();
      await app.close();
    }
  });

  it('switching organization changes the wallet shown', async () => {
    await page.goto(`${base}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
    await expect.poll(() => page.getByTestId('available').innerText()).toBe('$5.00');
    const switcher = page.getByLabel('Organization', { exact: true });
    await switcher.selectOption(orgId);
    await expect.poll(() => page.getByTestId('available').innerText()).toBe('$0.00');
    await switcher.selectOption(owner.accountId);
    await expect.poll(() => page.getByTestId('available').innerText()).toBe('$5.00');
    await switcher.selectOption(orgId);
    await expect.poll(() => page.getByTestId('available').innerText()).toBe('$0.00');
  }, 60_000);

  it('shows the members with a cell under every heading, and an invitation sent from the form in the pending list', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organization' }).click();
    await page.getByRole('heading', { name: 'Organization: Browser Lab' }).waitFor();
    await page.getByRole('cell', { name: owner.email, exact: true }).waitFor();
    const members = await table('Email');
    expect(members.headings).toEqual(['Email', 'Role', 'Daily limit', 'Monthly limit', 'Joined', 'Actions']);
    expect(members.rows).toHaveLength(1);
    expect(members.rows[0]?.[0]).toBe(owner.email);
    expect(members.rows[0]).toHaveLength(members.headings.length);
    expect(await page.getByLabel(`Role of ${owner.email}`).inputValue()).toBe('owner');

    await page.getByLabel('Email to invite').fill(invitee.email);
    await page.getByLabel('Role to give').selectOption('viewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('table', { name: 'Invitations' }).getByRole('cell', { name: invitee.email }).waitFor();
    const pending = (await tablesOf(page)).find((t) => t.label.startsWith('Pending invitations'));
    expect(pending?.headings).toEqual(['Email', 'Role', 'Sent', 'Expires']);
    expect(pending?.rows.map((r) => r.slice(0, 2))).toEqual([[invitee.email, 'viewer']]);
    // The invitation is in the audit log shown below.
    await page.getByRole('cell', { name: 'member.invited' }).waitFor();
  }, 60_000);

  it('a role changed in the members table appears in the audit log; filtered; downloaded as CSV', async () => {
    const inv = (await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/invitations`, headers: owner.auth })).json().data.invitations[0];
    const accepted = await app.inject({ method: 'POST', url: `/v1/orgs/${orgId}/invitations/${inv.invitation_id}/accept`, headers: invitee.auth });
    expect(accepted.statusCode, accepted.body).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Organization: Browser Lab' }).waitFor();
    const role = page.getByLabel(`Role of ${invitee.email}`);
    await expect.poll(() => role.inputValue()).toBe('viewer');
    await role.selectOption('developer');
    await page
      .getByRole('status')
      .filter({ hasText: `${invitee.email} is now developer` })
      .waitFor();
    await page.getByRole('cell', { name: 'member.role_changed' }).waitFor();
    const audit = await table('Time');
    expect(audit.headings).toEqual(['Time', 'Action', 'Actor', 'Target', 'Details']);
    const row = audit.rows.find((r) => r[1] === 'member.role_changed');
    expect(row?.[2]).toBe(`person ${owner.userId}`);
    expect(row?.[3]).toBe(invitee.userId);
    expect(JSON.parse(row?.[4] ?? '{}')).toEqual({ role: { from: 'viewer', to: 'developer' } });
    expect(audit.rows.every((r) => r.length === audit.headings.length)).toBe(true);

    await page.getByLabel('Action').fill('member.joined');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(async () => (await table('Time')).rows.map((r) => r[1])).toEqual(['member.joined']);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download audit log (CSV)' }).click()]);
    const csv = readFileSync(await download.path(), 'utf8');
    expect(csv.split('\n')[0]).toBe('event_id,at,actor_kind,actor_id,action,target,request_id,details');
    expect(csv).toContain('member.joined');
    expect(csv).not.toContain('member.role_changed');
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it("an owner sets a member's limits (shown in the table) and removes the member after confirming", async () => {
    await page.getByRole('button', { name: `Edit limits of ${invitee.email}` }).click();
    const form = page.getByRole('form', { name: `Limits of ${invitee.email}` });
    await form.getByLabel('Daily limit (USD, empty: none)').fill('2.5');
    await form.getByLabel('Monthly limit (USD, empty: none)').fill('10');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Limits of ${invitee.email}` })
      .waitFor();
    const row = async () => (await table('Email')).rows.find((r) => r[0] === invitee.email);
    await expect.poll(async () => (await row())?.slice(2, 4)).toEqual(['$2.50', '$10.00']);
    // The service has them too.
    const listed = (await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/members`, headers: owner.auth })).json().data.members as Array<{ user_id: string; spend_limits: unknown }>;
    expect(listed.find((m) => m.user_id === invitee.userId)?.spend_limits).toEqual({ daily_usd: '2.500000', monthly_usd: '10.000000' });

    // Dismissing the confirmation removes nobody; accepting it removes the member.
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('button', { name: `Remove ${invitee.email}` }).click();
    await page.getByRole('button', { name: `Edit limits of ${invitee.email}` }).waitFor();
    expect(await row()).toBeDefined();
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.accept();
    });
    await page.getByRole('button', { name: `Remove ${invitee.email}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${invitee.email} was removed` })
      .waitFor();
    expect(asked).toContain(`Remove ${invitee.email}`);
    await expect.poll(async () => (await table('Email')).rows.map((r) => r[0])).toEqual([owner.email]);
    const gone = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { ...invitee.auth, 'qrail-org': orgId } });
    expect(gone.statusCode).toBe(404);
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('an organization created from the form is acted in at once and is in the switcher', async () => {
    await page.getByLabel('Organization name').fill('Second Lab');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('heading', { name: 'Organization: Second Lab' }).waitFor();
    const switcher = page.getByLabel('Organization', { exact: true });
    await expect.poll(async () => (await switcher.locator('option:checked').innerText()).trim()).toBe('Second Lab — owner');
    const names = await switcher.locator('option').allInnerTexts();
    expect(names.map((n) => n.trim())).toEqual(expect.arrayContaining(['Browser Lab — owner', 'Second Lab — owner']));
    const mine = (await app.inject({ method: 'GET', url: '/v1/orgs', headers: owner.auth })).json().data.orgs as Array<{ name: string; role: string }>;
    expect(mine.filter((o) => o.name === 'Second Lab').map((o) => o.role)).toEqual(['owner']);
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
