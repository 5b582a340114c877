import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialScope } from '../../src/auth/credentials.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { bell, ghz3 } from '../helpers/circuits.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import { expectWallet } from '../execution/helpers.js';

/**
 * An agent on the platform interface with scoped credentials alone (issue #21 item 4): runs on
 * the simulator, the whole hardware flow (quote → hold → continue → result) with an OAuth access
 * token, and the account's spend controls refusing it exactly as they refuse its owner.
 */
describe('agents on the platform interface', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  /** A person with a funded account, and an OAuth access token of a credential with these scopes (no session used by the agent). */
  async function agentOf(scopes: CredentialScope[], fundMicros = 10_000_000n) {
    const person = await signUp(app);
    if (fundMicros > 0n) await fundAccount(app, person.accountId, fundMicros);
    const c = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: person.auth, payload: { name: 'agent', scopes } });
    expect(c.statusCode).toBe(201);
    const { client_id, secret } = c.json().data as { client_id: string; secret: string };
    const basic = Buffer.from(`${client_id}:${secret}`).toString('base64');
    const t = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    expect(t.statusCode).toBe(200);
    expect(t.json().scope.split(' ').sort()).toEqual([...scopes].sort());
    return { person, secret: { authorization: `Bearer ${secret}` }, token: { authorization: `Bearer ${t.json().access_token as string}` } };
  }

  it('an agent with only circuits:run + execute:simulator analyzes and runs on the simulators', async () => {
    const { token, secret } = await agentOf(['circuits:run', 'execute:simulator'], 0n);
    const analyzed = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: token, payload: { circuit: ghz3 } });
    expect(analyzed.statusCode).toBe(200);
    expect(analyzed.json().data.num_qubits).toBe(3);

    const p1 = await app.inject({ method: 'POST', url: '/v1/execute/provider-one', headers: token, payload: { circuit: bell, shots: 200, seed: 3, client_token: 'sim-agent-1' } });
    expect(p1.statusCode).toBe(200);
    const job = p1.json().data;
    expect(job).toMatchObject({ status: 'completed', kind: 'simulator' });
    expect(Object.keys(job.results.counts).sort()).toEqual(['00', '11']);
    // The secret itself works as well as its token; reading the run back needs the same scope.
    const read = await app.inject({ method: 'GET', url: `/v1/execute/provider-one/${job.job_id as string}`, headers: secret });
    expect(read.statusCode).toBe(200);
    expect(read.json().data.job_id).toBe(job.job_id);

    const p2 = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: token, payload: { circuit: bell, shots: 50, device: 'p2-local-simulator', client_token: 'sim-agent-2' } });
    expect(p2.statusCode).toBe(200);
    expect(p2.json().data.status).toBe('completed');
    const list = await app.inject({ method: 'GET', url: '/v1/execute/jobs', headers: token });
    expect(list.json().data.jobs.map((j: { job_id: string }) => j.job_id)).toContain(job.job_id);

    // Hardware is beyond these scopes: the plain route still explains the steps, the first step is refused by scope.
    const hw = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: token, payload: { circuit: bell, shots: 10, device: 'p2-ion-11', client_token: 'sim-agent-3' } });
    expect(hw.json().error.code).toBe('EXECUTION_HOLD_REQUIRED');
    const quote = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: token, payload: { device: 'p2-ion-11', shots: 10 } });
    expect(quote.statusCode).toBe(403);
    expect(quote.json().error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required_scopes: ['execute:hardware'] } });
    // And the wallet is not readable without billing:read.
    expect((await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: token })).json().error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('an agent with execute:hardware quotes, holds and continues a hardware run with its access token alone; one capture, ledger clean', async () => {
    const { token } = await agentOf(['execute:hardware', 'billing:read']);
    await expectWallet(app, token, '10.000000', '0.000000');

    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: token, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 100 } });
    expect(q.statusCode).toBe(200);
    expect(q.json().data.total).toBe('3.300000');
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...token, 'idempotency-key': 'agent-hold-1' }, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode).toBe(201);
    const held = h.json().data as { job_id: string; status: string };
    expect(held.status).toBe('held');
    await expectWallet(app, token, '6.700000', '3.300000');
    // The same Idempotency-Key replays the hold: keys are the account's, whoever calls.
    const again = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...token, 'idempotency-key': 'agent-hold-1' }, payload: { quote_id: q.json().data.quote_id } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.job_id).toBe(held.job_id);

    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: token, payload: { circuit: ghz3, client_token: 'agent-hw-1', seed: 5 } });
    expect(cont.statusCode).toBe(202);
    expect(cont.json().data).toMatchObject({ job_id: held.job_id, status: 'queued', kind: 'hardware' });
    expect(await app.services.executionWorker.drain()).toEqual([{ jobId: held.job_id, outcome: 'completed' }]);

    const done = await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: token });
    expect(done.json().data.status).toBe('completed');
    const counts = done.json().data.results.counts as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(100);
    const actual = done.json().data.cost.actual as string;
    // Captured once, from the agent's account: what the owner sees with the session is the same wallet.
    const spent = Math.round(Number(actual) * 1e6);
    const available = ((10_000_000 - spent) / 1e6).toFixed(6);
    await expectWallet(app, token, available, '0.000000');
    await expectLedgerInvariants(app);
  });

  it('spend controls refuse an agent’s hold exactly as they refuse its owner’s, and the agent cannot change them', async () => {
    const { person, token } = await agentOf(['execute:hardware', 'billing:read']);
    const patch = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: person.auth, payload: { daily_limit: '5.00' } });
    expect(patch.statusCode).toBe(200);
    const raise = await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: token, payload: { daily_limit: null } });
    expect(raise.statusCode).toBe(403);
    expect(raise.json().error.code).toBe('SESSION_REQUIRED');
    const topUp = await app.inject({ method: 'POST', url: '/v1/billing/processor/payment-intent', headers: token, payload: { amount: '50.00', payment_method: 'pm_card_visa' } });
    expect(topUp.json().error.code).toBe('SESSION_REQUIRED');

    const quote = async (auth: { authorization: string }) => {
      const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { device: 'p2-ion-11', shots: 100 } });
      expect(q.statusCode).toBe(200);
      return q.json().data.quote_id as string;
    };
    const hold = (auth: { authorization: string }, quoteId: string) => app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: quoteId } });

    // 3.30 fits under the daily 5.00; a second 3.30 does not, whoever asks.
    expect((await hold(token, await quote(token))).statusCode).toBe(201);
    const byAgent = await hold(token, await quote(token));
    const byPerson = await hold(person.auth, await quote(person.auth));
    expect(byAgent.statusCode).toBe(409);
    expect(byAgent.json().error.code).toBe('SPEND_LIMIT_DAILY');
    expect(byPerson.statusCode).toBe(409);
    expect(byAgent.json().error).toEqual(byPerson.json().error);

    // Hardware turned off by the owner: the agent's quote → hold is refused the same way.
    await app.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: person.auth, payload: { daily_limit: null, hardware_allowed: false } });
    const offAgent = await hold(token, await quote(token));
    const offPerson = await hold(person.auth, await quote(person.auth));
    expect(offAgent.statusCode).toBe(409);
    expect(offAgent.json().error.code).toBe('HARDWARE_DISABLED');
    expect(offAgent.json().error).toEqual(offPerson.json().error);
    await expectWallet(app, token, '6.700000', '3.300000');
  });
});
