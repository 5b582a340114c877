import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { linkIn, startSmtpReceiver } from '../accounts/smtp-receiver.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * Issue #39's invitation over a real SMTP exchange: the app (SMTP_URL → a local `smtp-server`)
 * mails the verification links and the invitation; the test reads what arrived, follows the
 * invitee's verification link, takes the organization and invitation ids from the invitation's
 * link and accepts with the invitee's session, as a person would.
 */
describe('an organization invitation over SMTP', () => {
  let app: App;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    app = await buildTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'qrail <no-reply@qrail.test>', MAIL_POLL_MS: '50', RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
    app.services.mailOutbox.start();
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });

  /** Opens the verification link the person received. */
  const verifyByMail = async (u: User) => {
    const mail = await smtp.waitForMail(u.email, /Confirm your email address/);
    const link = linkIn(mail, '/v1/auth/email/verify');
    expect((await app.inject({ method: 'GET', url: `${link.pathname}${link.search}` })).statusCode).toBe(200);
  };

  it('the invitee receives the mail, verifies their address, accepts through the link and is a member with the role', async () => {
    const [owner, invitee] = await Promise.all([signUp(app), signUp(app)]);
    await Promise.all([verifyByMail(owner), verifyByMail(invitee)]);
    const org = await app.inject({ method: 'POST', url: '/v1/orgs', headers: { ...owner.auth, 'idempotency-key': 'smtp-lab' }, payload: { name: 'SMTP Lab' } });
    expect(org.statusCode, org.body).toBe(201);
    const orgId = org.json().data.org_id as string;

    const inv = await app.inject({
      method: 'POST',
      url: `/v1/orgs/${orgId}/invitations`,
      headers: { ...owner.auth, 'idempotency-key': 'smtp-inv' },
      payload: { email: invitee.email, role: 'billing' },
    });
    expect(inv.statusCode, inv.body).toBe(201);

    const mail = await smtp.waitForMail(invitee.email, /You are invited to SMTP Lab on qrail/);
    expect(mail.from).toBe('no-reply@qrail.test');
    expect(mail.to).toEqual([invitee.email.toLowerCase()]);
    expect(mail.body).toContain(`invited you to the organization "SMTP Lab" on qrail, as billing`);
    // The accept link, in both the text and the HTML part.
    const links = [...mail.body.matchAll(/https?:\/\/[^\s"<>]*\/console\/orgs\/([0-9a-f-]{36})\/invitations\/([0-9a-f-]{36})/g)];
    expect(links.length).toBeGreaterThanOrEqual(2);
    const [, linkOrg, invitationId] = links[0] as RegExpMatchArray;
    expect(new URL(links[0]?.[0] ?? '').origin).toBe('http://qrail.test');
    expect(linkOrg).toBe(orgId);
    expect(invitationId).toBe(inv.json().data.invitation_id);

    // Someone else's session cannot use it, even with the link in hand.
    const stranger = await signUp(app);
    await verifyByMail(stranger);
    const wrong = await app.inject({ method: 'POST', url: `/v1/orgs/${linkOrg}/invitations/${invitationId}/accept`, headers: stranger.auth });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('ORG_INVITATION_EMAIL_MISMATCH');

    const accepted = await app.inject({ method: 'POST', url: `/v1/orgs/${linkOrg}/invitations/${invitationId}/accept`, headers: invitee.auth });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().data).toMatchObject({ org_id: orgId, name: 'SMTP Lab', role: 'billing', personal: false });

    const members = await app.inject({ method: 'GET', url: `/v1/orgs/${orgId}/members`, headers: owner.auth });
    const byEmail = new Map((members.json().data.members as { email: string; role: string }[]).map((m) => [m.email, m.role]));
    expect(byEmail).toEqual(
      new Map([
        [owner.email, 'owner'],
        [invitee.email, 'billing'],
      ]),
    );
    // The invitee now acts in the organization with that role; the link works once.
    const wallet = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: { ...invitee.auth, 'qrail-org': orgId } });
    expect(wallet.statusCode).toBe(200);
    const again = await app.inject({ method: 'POST', url: `/v1/orgs/${linkOrg}/invitations/${invitationId}/accept`, headers: invitee.auth });
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('ORG_INVITATION_NOT_USABLE');
  });
});
