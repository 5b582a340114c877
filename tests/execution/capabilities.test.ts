import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { FakeIonq } from './fakes/ionq-v04-fake.js';

type Reason = { code: string; message: string };
type DeviceRow = { device: string; ready: boolean; reasons: Reason[] };
const codes = (rs: Reason[]) => [...new Set(rs.map((r) => r.code))].sort();

async function caps(app: App, auth?: { authorization: string }) {
  const r = await app.inject({ method: 'GET', url: '/v1/execute/capabilities', ...(auth === undefined ? {} : { headers: auth }) });
  expect(r.statusCode).toBe(200);
  return r.json().data;
}

function device(c: { provider_two: { hardware: { devices: DeviceRow[] } } }, id: string): DeviceRow {
  return c.provider_two.hardware.devices.find((d) => d.device === id)!;
}

/**
 * The readiness matrix (spec §1 rules 1–3): remote driver configured / not / key missing,
 * wallet funded / not, device offline, spend controls off, no session. Payment readiness
 * never makes hardware ready.
 */
describe('GET /v1/execute/capabilities: readiness matrix', () => {
  const fake = new FakeIonq();
  let plain: App; // nothing configured, p2-grid-9 offline by deployment setting
  let keyless: App; // IONQ_BASE_URL without key
  let remote: App; // IonQ configured against the fake
  beforeAll(async () => {
    await fake.start();
    [plain, keyless, remote] = await Promise.all([
      buildTestApp({ EXECUTION_DEVICE_STATUS: 'p2-grid-9=offline' }),
      buildTestApp({ IONQ_BASE_URL: 'https://api.ionq.co/v0.4' }),
      buildTestApp({ IONQ_BASE_URL: fake.baseUrl, IONQ_API_KEY: 'test-key', EXECUTION_STATUS_CACHE_MS: '0' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), keyless?.close(), remote?.close()]);
    await fake.close();
  });

  it('no session: simulators and hardware all say no_session; nothing is ready', async () => {
    const c = await caps(plain);
    expect(c.session).toEqual({ authenticated: false, account_id: null });
    expect(c.provider_one.simulator).toMatchObject({ ready: false });
    expect(codes(c.provider_one.simulator.reasons)).toEqual(['no_session']);
    expect(codes(c.provider_two.simulator.reasons)).toEqual(['no_session']);
    for (const k of ['held_job_continuation', 'hardware_quote', 'hardware_hold', 'payment'] as const) {
      expect(c[k].ready).toBe(false);
      expect(codes(c[k].reasons)).toEqual(['no_session']);
    }
    expect(c.provider_two.hardware.ready).toBe(false);
    expect(c.media).toHaveProperty('chat');
    expect(c.media).toHaveProperty('tts');
  });

  it('unfunded: simulators ready; hardware not (wallet_not_funded; offline device; remote not configured)', async () => {
    const u = await signUp(plain);
    const c = await caps(plain, u.auth);
    expect(c.provider_one.simulator.ready).toBe(true);
    expect(c.provider_two.simulator.ready).toBe(true);
    expect(c.provider_one.hardware.ready).toBe(false);
    // IBM Quantum is not configured here (no key, no instance, no backend mapped) and the wallet is empty.
    expect(codes(c.provider_one.hardware.reasons)).toEqual(['provider_not_configured', 'wallet_not_funded']);
    expect(codes(device(c, 'p2-ion-11').reasons)).toEqual(['wallet_not_funded']);
    expect(codes(device(c, 'p2-grid-9').reasons)).toEqual(['device_offline', 'wallet_not_funded']);
    expect(codes(device(c, 'p2-ionq-qpu').reasons)).toEqual(['provider_not_configured', 'wallet_not_funded']);
    expect(c.provider_two.hardware.ready).toBe(false);
    expect(c.payment.ready).toBe(false);
    expect(codes(c.hardware_hold.reasons)).toEqual(['wallet_not_funded']);
    expect(c.hardware_quote.ready).toBe(true); // a price needs no money
    expect(codes(c.held_job_continuation.reasons)).toEqual(['quote_hold_required']);
  });

  it('funded: the online emulated device is ready; the offline one and the unconfigured remote are not (payment ≠ hardware)', async () => {
    const u = await signUp(plain);
    await fundAccount(plain, u.accountId, 5_000_000n);
    const c = await caps(plain, u.auth);
    expect(c.payment).toMatchObject({ ready: true, available: '5.000000' });
    expect(device(c, 'p2-ion-11')).toMatchObject({ ready: true, reasons: [] });
    expect(codes(device(c, 'p2-grid-9').reasons)).toEqual(['device_offline']);
    expect(codes(device(c, 'p2-ionq-qpu').reasons)).toEqual(['provider_not_configured']);
    expect(c.provider_two.hardware.ready).toBe(true);
    expect(c.hardware_hold.ready).toBe(true);
    expect(c.held_job_continuation.ready).toBe(false);
    await expectLedgerInvariants(plain);
  });

  it('funded but every hardware device down: payment ready, hardware not (rule 3)', async () => {
    const u = await signUp(plain);
    await fundAccount(plain, u.accountId, 5_000_000n);
    await plain.services.execution.setDeviceStatus('p2-ion-11', 'offline', 'outage');
    try {
      const c = await caps(plain, u.auth);
      expect(c.payment.ready).toBe(true);
      expect(c.provider_two.hardware.ready).toBe(false);
      expect(codes(c.provider_two.hardware.reasons)).toEqual(['device_offline', 'provider_not_configured']);
      expect(c.provider_two.simulator.ready).toBe(true);
    } finally {
      await plain.services.execution.setDeviceStatus('p2-ion-11', null);
    }
  });

  it('spend controls off: hardware and holds not ready (hardware_disabled_by_spend_controls), simulators unaffected', async () => {
    const u = await signUp(plain);
    await fundAccount(plain, u.accountId, 5_000_000n);
    const p = await plain.inject({ method: 'PATCH', url: '/v1/billing/spend-controls', headers: u.auth, payload: { hardware_allowed: false } });
    expect(p.statusCode).toBe(200);
    const c = await caps(plain, u.auth);
    expect(codes(device(c, 'p2-ion-11').reasons)).toEqual(['hardware_disabled_by_spend_controls']);
    expect(c.provider_two.hardware.ready).toBe(false);
    expect(codes(c.hardware_hold.reasons)).toEqual(['hardware_disabled_by_spend_controls']);
    expect(c.payment.ready).toBe(true);
    expect(c.provider_two.simulator.ready).toBe(true);
  });

  it('remote driver: URL without key → credentials_missing; configured → ready; provider switched off → not configured', async () => {
    const u = await signUp(keyless);
    await fundAccount(keyless, u.accountId, 5_000_000n);
    expect(codes(device(await caps(keyless, u.auth), 'p2-ionq-qpu').reasons)).toEqual(['credentials_missing']);

    const v = await signUp(remote);
    await fundAccount(remote, v.accountId, 5_000_000n);
    expect(device(await caps(remote, v.auth), 'p2-ionq-qpu')).toMatchObject({ ready: true, reasons: [] });
    fake.script.backendStatus = 'calibrating';
    const during = device(await caps(remote, v.auth), 'p2-ionq-qpu');
    expect(codes(during.reasons)).toEqual(['device_offline']);
    expect(during.reasons[0]!.message).toMatch(/maintenance.*calibrating/);
    fake.script.backendStatus = 'available';

    const off = await buildTestApp({ EXECUTION_PROVIDER_TWO: 'off' });
    try {
      const w = await signUp(off);
      const c = await caps(off, w.auth);
      expect(codes(c.provider_two.simulator.reasons)).toEqual(['provider_not_configured']);
      expect(c.provider_two.hardware.ready).toBe(false);
      expect(c.provider_one.simulator.ready).toBe(true);
      const run = await off.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: w.auth, payload: { circuit: { schema: '0.2', num_qubits: 1, gates: [] }, client_token: 'x' } });
      expect(run.json().error.code).toBe('EXECUTION_PROVIDER_NOT_CONFIGURED');
    } finally {
      await off.close();
    }
  });

  it('held job continuation: ready with an open held job on an online device; names the job', async () => {
    const u = await signUp(plain);
    await fundAccount(plain, u.accountId, 5_000_000n);
    // A hold is only placed while the device is up (an operator override over the deployment's "offline")…
    await plain.services.execution.setDeviceStatus('p2-grid-9', 'online', 'briefly up');
    const q = (await plain.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-two', device: 'p2-grid-9', shots: 10 } })).json().data;
    const hr = await plain.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.quote_id } });
    expect(hr.statusCode).toBe(201);
    const h = hr.json().data;
    await plain.services.execution.setDeviceStatus('p2-grid-9', null);
    // …and p2-grid-9 is offline on this deployment again: the held job is listed, not ready.
    let c = await caps(plain, u.auth);
    expect(c.held_job_continuation.ready).toBe(false);
    expect(c.held_job_continuation.held_jobs).toEqual([expect.objectContaining({ job_id: h.job_id, device: 'p2-grid-9', ready: false })]);
    expect(codes(c.held_job_continuation.reasons)).toEqual(['device_offline']);
    await plain.services.execution.setDeviceStatus('p2-grid-9', 'online', 'back');
    try {
      c = await caps(plain, u.auth);
      expect(c.held_job_continuation).toMatchObject({ ready: true, reasons: [] });
    } finally {
      await plain.services.execution.setDeviceStatus('p2-grid-9', null);
    }
    await expectLedgerInvariants(plain);
  });
});
