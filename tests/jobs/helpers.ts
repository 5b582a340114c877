import { expect } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { checkJobInvariants } from '../../src/store/jobs/jobs-invariants.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import { signUp } from '../helpers/app.js';
import { testCapabilities } from './fixtures/test-capabilities.js';

export interface Agent {
  readonly accountId: string;
  readonly session: { authorization: string };
  readonly secret: string;
  readonly credentialId: string;
  readonly auth: { authorization: string };
}

/** A user with a funded account and a machine credential of the given scopes. */
export async function newAgent(app: App, opts: { fundMicros?: bigint; scopes?: string[] } = {}): Promise<Agent> {
  const u = await signUp(app);
  const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent', scopes: opts.scopes ?? ['jobs:read', 'jobs:write'] } });
  if (r.statusCode !== 201) throw new Error(`credential: ${r.statusCode} ${r.body}`);
  const d = r.json().data;
  const fund = opts.fundMicros ?? 10_000_000n;
  if (fund > 0n) await fundAccount(app, u.accountId, fund);
  return { accountId: u.accountId, session: u.auth, secret: d.secret, credentialId: d.credential_id, auth: { authorization: `Bearer ${d.secret}` } };
}

/** Registers the test capabilities on the app's live catalog. */
export function withTestCapabilities(app: App) {
  const caps = testCapabilities();
  const reg = app.services.jobs.capabilities;
  if (reg.get('test.echo') === undefined) {
    reg.register(caps.echo);
    reg.register(caps.effectful);
  }
  return caps;
}

export async function submit(app: App, agent: Agent, body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/v1/jobs', headers: agent.auth, payload: body });
}

let n = 0;
export function key(tag = 'k'): string {
  n += 1;
  return `${tag}-${process.pid}-${n}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function expectAllInvariants(app: App): Promise<void> {
  await expectLedgerInvariants(app);
  expect(await checkJobInvariants(app.db)).toEqual([]);
}
