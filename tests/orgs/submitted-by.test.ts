import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { ghz3 } from '../helpers/circuits.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';

type User = Awaited<ReturnType<typeof signUp>>;

/**
 * Who submitted (issue #39 item 6): held jobs, their ledger transfers, execution jobs, Account
 * Jobs and their receipts name the person (`user`) or the machine credential (`credential`)
 * behind them, so an organization can tell who spent what.
 */
describe('who submitted', () => {
  let app: App;
  let person: User;
  let credentialId: string;
  let key: { authorization: string };

  beforeAll(async () => {
    app = await buildTestApp();
    person = await signUp(app);
    await fundAccount(app, person.accountId, 10_000_000n);
    const c = await app.inject({
      method: 'POST',
      url: '/v1/auth/credentials',
      headers: person.auth,
      payload: { name: 'agent', scopes: ['jobs:write', 'jobs:read', 'execute:simulator', 'billing:read'] },
    });
    expect(c.statusCode, c.body).toBe(201);
    credentialId = c.json().data.credential_id;
    key = { authorization: `Bearer ${c.json().data.secret as string}` };
  });
  afterAll(async () => app.close());

  it('a hardware hold and its ledger transfer name the person who placed it', async () => {
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: person.auth, payload: { provider: 'provider-two', device: 'p2-ion-11', shots: 10 } });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: { ...person.auth, 'idempotency-key': randomUUID() }, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode, h.body).toBe(201);
    expect(h.json().data.submitted_by).toEqual({ kind: 'user', id: person.userId });
    const ledger = await app.inject({ method: 'GET', url: '/v1/billing/ledger?kind=hold', headers: person.auth });
    expect(ledger.statusCode, ledger.body).toBe(200);
    const transfer = (ledger.json().data.entries as Array<{ hold_id: string; submitted_by: unknown }>).find((e) => e.hold_id === h.json().data.hold_id);
    expect(transfer?.submitted_by).toEqual({ kind: 'user', id: person.userId });
    // A grant moved money without anyone submitting anything.
    const grants = await app.inject({ method: 'GET', url: '/v1/billing/ledger?kind=grant', headers: person.auth });
    expect(grants.json().data.entries.length).toBeGreaterThan(0);
    for (const e of grants.json().data.entries as Array<{ submitted_by: unknown }>) expect(e.submitted_by).toBeNull();
    await expectLedgerInvariants(app);
  });

  it('execution jobs name the session’s person or the credential', async () => {
    const byPerson = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: person.auth, payload: { circuit: ghz3, shots: 100, seed: 1, client_token: 'p' } });
    expect(byPerson.statusCode, byPerson.body).toBe(200);
    expect(byPerson.json().data.submitted_by).toEqual({ kind: 'user', id: person.userId });
    const byKey = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: key, payload: { circuit: ghz3, shots: 100, seed: 1, client_token: 'k' } });
    expect(byKey.statusCode, byKey.body).toBe(200);
    expect(byKey.json().data.submitted_by).toEqual({ kind: 'credential', id: credentialId });
    const list = await app.inject({ method: 'GET', url: '/v1/execute/jobs', headers: person.auth });
    const kinds = (list.json().data.jobs as Array<{ submitted_by: { kind: string } }>).map((j) => j.submitted_by.kind).sort();
    expect(kinds).toEqual(['credential', 'user']);
  });

  it('an Account Job and its receipt name the credential that submitted it', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: key,
      payload: { capability_id: 'circuit.analyze', request: { circuit: ghz3 }, idempotency_key: randomUUID(), max_total_price: '0.01' },
    });
    expect(r.statusCode, r.body).toBe(202);
    const id = r.json().job_id as string;
    expect(r.json().submitted_by).toEqual({ kind: 'credential', id: credentialId });
    expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: id, status: 'completed' });
    const done = await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: key });
    expect(done.json()).toMatchObject({ status: 'completed', submitted_by: { kind: 'credential', id: credentialId }, receipt: { job_id: id, submitted_by: { kind: 'credential', id: credentialId } } });
    await expectLedgerInvariants(app);
  });
});
