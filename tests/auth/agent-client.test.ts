import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, QrailApiError } from '../../packages/client/src/index.js';
import type { App } from '../../src/http/app-types.js';
import { buildLiveApp, signUp } from '../helpers/app.js';
import { bell } from '../helpers/circuits.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

/**
 * The typed client of an agent that has only its machine credential (no session): its platform
 * calls carry the credential's access token, so quote → hold → continue → wait runs end to end
 * over a listening port with the workers running, and a scope it lacks is a typed 403.
 */
describe('@qrail/client with client credentials alone on the platform interface', () => {
  let app: App;
  let url: string;
  beforeAll(async () => {
    ({ app, url } = await buildLiveApp());
  });
  afterAll(async () => {
    await app.close();
  });

  it('runs a hardware job with quote → hold → continue → wait, and is refused by scope where it has none', async () => {
    const person = await signUp(app);
    await fundAccount(app, person.accountId, 5_000_000n);
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: person.auth, payload: { name: 'hw agent', scopes: ['execute:hardware', 'billing:read'] } });
    const { client_id: clientId, secret: clientSecret } = c.json<{ data: { client_id: string; secret: string } }>().data;
    const agent = createClient({ baseUrl: url, clientCredentials: { clientId, clientSecret } });

    const quote = await agent.billing.quote({ provider: 'provider-two', device: 'p2-grid-9', shots: 10 });
    const held = await agent.billing.hold({ quote_id: quote.quote_id });
    expect(held.status).toBe('held');
    expect((await agent.billing.wallet()).held).toBe(quote.total);
    const queued = await agent.execution.continueHeldJob(held.job_id, { circuit: bell, seed: 2 });
    expect(queued.status).toBe('queued');
    const done = await agent.execution.waitForJob('provider-two', held.job_id, { intervalMs: 20, maxIntervalMs: 100 });
    expect(done.status).toBe('completed');
    expect(Object.values(done.results?.counts ?? {}).reduce((a, b) => a + b, 0)).toBe(10);
    expect((await agent.billing.wallet()).held).toBe('0.000000');
    await expectLedgerInvariants(app);

    const refused = await agent.execution.runProviderOne({ circuit: bell, shots: 10 }).catch((e: unknown) => e);
    expect(QrailApiError.is(refused, 'INSUFFICIENT_SCOPE')).toBe(true);
    if (!(refused instanceof QrailApiError)) throw new Error('expected an API error');
    expect(refused.status).toBe(403);
    expect(refused.message).toContain('execute:simulator');
  });
});
