import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, QrailApiError } from '../../packages/client/src/index.js';
import type { App } from '../../src/http/app-types.js';
import { buildLiveApp, PASSWORD, uniqueEmail } from '../helpers/app.js';

/**
 * @qrail/client in an organization (issue #39): create one, invite and accept through the
 * mailed link, and a client made with `org` acting there (its wallet is the organization's).
 */
describe('@qrail/client acts in an organization', () => {
  let app: App;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await buildLiveApp({ QRAIL_OPERATOR_TOKEN: 'op-token-for-client-org-tests-0123456789' }));
  });
  afterAll(async () => app.close());

  const person = async () => {
    const email = uniqueEmail('org');
    const c = createClient({ baseUrl: url });
    await c.auth.register(email, PASSWORD);
    await c.auth.login(email, PASSWORD);
    const mail = await app.db.query<{ text_body: string }>(`SELECT text_body FROM mail_outbox WHERE to_address = $1 AND template = 'verify_email'`, [email]);
    const token = /token=(qrv_[A-Za-z0-9_-]+)/.exec(mail.rows[0]?.text_body ?? '')?.[1] ?? '';
    await c.request('post', '/v1/auth/email/verify', { body: { token } });
    return { c, email };
  };

  it('creates, invites, accepts, and acts in the organization with `org`', async () => {
    const owner = await person();
    const org = await owner.c.orgs.create('Lab');
    expect(org.role).toBe('owner');
    const dev = await person();
    const inv = await owner.c.orgs.invite(org.org_id, { email: dev.email, role: 'developer' });
    expect(inv.status).toBe('pending');
    const joined = await dev.c.orgs.acceptInvitation(org.org_id, inv.invitation_id);
    expect(joined).toMatchObject({ org_id: org.org_id, role: 'developer' });
    expect((await owner.c.orgs.members(org.org_id)).map((m) => m.role).sort()).toEqual(['developer', 'owner']);

    const token = dev.c.auth.token;
    if (token === undefined) throw new Error('no session');
    const inLab = createClient({ baseUrl: url, token, org: org.org_id });
    expect((await inLab.billing.wallet()).available).toBe('0.000000');
    const refused = await inLab.billing.updateSpendControls({ daily_limit: '1.00' }).catch((e: unknown) => e);
    if (!QrailApiError.is(refused, 'ORG_ROLE_FORBIDDEN')) throw new Error('expected ORG_ROLE_FORBIDDEN');
    expect(refused.status).toBe(403);
    const audit = await owner.c.orgs.audit(org.org_id, { limit: 10 });
    expect(audit.events.map((e) => e.action)).toEqual(['member.joined', 'member.invited', 'org.created']);
  });
});
