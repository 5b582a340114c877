import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import type { App } from '../../src/http/app-types.js';
import { bell, expectWallet } from './helpers.js';

type Reason = { code: string; message: string };
const codes = (rs: Reason[]) => [...new Set(rs.map((r) => r.code))].sort();

/**
 * Quotes and holds for a device that cannot run now (docs/decisions/execution-offline-device-holds.md):
 * the quote is given and shows the device's state; the hold is refused with the same 409 a
 * continuation gets, before any money moves, so no funds sit held for a device that is down.
 */
describe('hardware quotes and holds for offline, in-maintenance and unconfigured devices', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp({ EXECUTION_DEVICE_STATUS: 'p2-grid-9=offline,p2-ion-11=maintenance' });
  });
  afterAll(async () => {
    await app.close();
  });

  const quote = async (auth: { authorization: string }, device: string, shots = 10) => {
    const r = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device, shots } });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().data;
  };
  const hold = (auth: { authorization: string }, quoteId: string) => app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: quoteId } });
  const holdRows = async (accountId: string) => (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_holds WHERE account_id = $1', [accountId])).rows[0]?.n;

  it('offline and maintenance: the quote shows the status; the hold → 409 EXECUTION_DEVICE_UNAVAILABLE naming it; the wallet is unchanged', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    await expectWallet(app, u.auth, '2.000000', '0.000000');

    const grid = await quote(u.auth, 'p2-grid-9');
    expect(grid).toMatchObject({ device: 'p2-grid-9', total: '0.309000', device_status: 'offline', device_available: false });
    expect(codes(grid.device_reasons)).toEqual(['device_offline']);
    const ion = await quote(u.auth, 'p2-ion-11');
    expect(ion).toMatchObject({ device: 'p2-ion-11', device_status: 'maintenance', device_available: false });

    const refusedGrid = await hold(u.auth, grid.quote_id);
    expect(refusedGrid.statusCode).toBe(409);
    expect(refusedGrid.json().error).toMatchObject({ code: 'EXECUTION_DEVICE_UNAVAILABLE', details: { device: 'p2-grid-9', status: 'offline' } });
    expect(refusedGrid.json().error.message).toMatch(/p2-grid-9 is offline.*No hold was placed/);
    const refusedIon = await hold(u.auth, ion.quote_id);
    expect(refusedIon.statusCode).toBe(409);
    expect(refusedIon.json().error).toMatchObject({ code: 'EXECUTION_DEVICE_UNAVAILABLE', details: { device: 'p2-ion-11', status: 'maintenance' } });

    // Nothing moved, no hold row, no held job.
    await expectWallet(app, u.auth, '2.000000', '0.000000');
    expect(await holdRows(u.accountId)).toBe(0);
    expect((await app.inject({ method: 'GET', url: '/v1/billing/jobs?kind=hardware', headers: u.auth })).json().data.jobs).toEqual([]);

    // Capabilities agree: no hardware device can take a hold.
    const caps = (await app.inject({ method: 'GET', url: '/v1/execute/capabilities', headers: u.auth })).json().data;
    expect(caps.hardware_hold.ready).toBe(false);
    expect(codes(caps.hardware_hold.reasons)).toEqual(['device_offline', 'provider_not_configured']);
    expect(caps.provider_two.hardware.ready).toBe(false);
  });

  it('an operator override taking a device down refuses holds too; back online, the same quote is held', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    await app.services.execution.setDeviceStatus('p2-grid-9', 'online');
    try {
      const online = await quote(u.auth, 'p2-grid-9');
      expect(online).toMatchObject({ device_status: 'online', device_available: true, device_reasons: [] });
      await app.services.execution.setDeviceStatus('p2-grid-9', 'offline', 'cryostat warm-up');
      const refused = await hold(u.auth, online.quote_id);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 'EXECUTION_DEVICE_UNAVAILABLE', details: { device: 'p2-grid-9', status: 'offline' } });
      await expectWallet(app, u.auth, '1.000000', '0.000000');

      // The refused hold did not use up the quote.
      await app.services.execution.setDeviceStatus('p2-grid-9', 'online');
      const placed = await hold(u.auth, online.quote_id);
      expect(placed.statusCode, placed.body).toBe(201);
      expect(placed.json().data).toMatchObject({ status: 'held', amount: '0.309000' });
      await expectWallet(app, u.auth, '0.691000', '0.309000');
      const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${placed.json().data.job_id}`, headers: u.auth, payload: { circuit: bell, client_token: 'back-online' } });
      expect(cont.statusCode).toBe(202);
      await app.services.executionWorker.drain();
      await expectWallet(app, u.auth, '0.691000', '0.000000');
    } finally {
      await app.services.execution.setDeviceStatus('p2-grid-9', null);
    }
  });

  it('an unconfigured device (remote IonQ without IONQ_BASE_URL): quote says why; hold → 409 EXECUTION_PROVIDER_NOT_CONFIGURED', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const aria = await quote(u.auth, 'p2-ionq-qpu');
    expect(aria).toMatchObject({ device_status: 'online', device_available: false });
    expect(codes(aria.device_reasons)).toEqual(['provider_not_configured']);
    const refused = await hold(u.auth, aria.quote_id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'EXECUTION_PROVIDER_NOT_CONFIGURED', details: { device: 'p2-ionq-qpu' } });
    await expectWallet(app, u.auth, '2.000000', '0.000000');
    expect(await holdRows(u.accountId)).toBe(0);
  });

  it('a used quote still answers QUOTE_ALREADY_USED (naming the job) after its device went down', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 1_000_000n);
    await app.services.execution.setDeviceStatus('p2-grid-9', 'online');
    try {
      const q = await quote(u.auth, 'p2-grid-9');
      const first = await hold(u.auth, q.quote_id);
      expect(first.statusCode).toBe(201);
      await app.services.execution.setDeviceStatus('p2-grid-9', 'maintenance');
      const again = await hold(u.auth, q.quote_id);
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatchObject({ code: 'QUOTE_ALREADY_USED', details: { job_id: first.json().data.job_id } });
      // The hold placed while online keeps its funds until released (continuation is refused meanwhile).
      await expectWallet(app, u.auth, '0.691000', '0.309000');
      const rel = await app.inject({ method: 'POST', url: `/v1/billing/hardware/hold/${first.json().data.job_id}/release`, headers: u.auth });
      expect(rel.statusCode).toBe(200);
      await expectWallet(app, u.auth, '1.000000', '0.000000');
    } finally {
      await app.services.execution.setDeviceStatus('p2-grid-9', null);
    }
  });
});
