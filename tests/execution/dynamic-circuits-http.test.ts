/**
 * Dynamic circuits over HTTP (issue 22 item 5): a wire circuit with gate `condition`s runs on the
 * simulator devices of both providers (in the request and queued for the worker), through the
 * Account Jobs `circuit.simulate` capability, and is refused on hardware without dynamic circuits
 * with DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED before any task of the hold is taken (wallet and ledger
 * unchanged). Devices list `supports_dynamic_circuits`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { expectLedgerInvariants, fundAccount } from '../helpers/ledger.js';
import { openapiDocument, ResponseChecker } from '../helpers/openapi.js';
import { expectExecutionInvariants, expectWallet, holdGridTasks, settleExecutionJob } from './helpers.js';

const THETA = 1.1;
const PHI = -0.6;

/** Teleports ry(θ)·rz(φ)|0⟩ from qubit 0 to 2 with `if (c1) x; if (c0) z`, undoes the preparation on 2, measures it into c2. */
const teleportUndo = {
  schema: '0.2',
  num_qubits: 3,
  num_clbits: 3,
  gates: [
    { op: 'ry', qubits: [0], params: [THETA] },
    { op: 'rz', qubits: [0], params: [PHI] },
    { op: 'h', qubits: [1] },
    { op: 'cx', qubits: [1, 2] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'h', qubits: [0] },
    { op: 'measure', qubits: [0], clbits: [0] },
    { op: 'measure', qubits: [1], clbits: [1] },
    { op: 'x', qubits: [2], condition: { clbits: [1], value: 1 } },
    { op: 'z', qubits: [2], condition: { clbits: [0], value: 1 } },
    { op: 'rz', qubits: [2], params: [-PHI] },
    { op: 'ry', qubits: [2], params: [-THETA] },
  ],
  measurements: [{ qubit: 2, clbit: 2 }],
};

/** c2 (the leftmost character) is 0 on every shot, and all four corrections occurred. */
function expectTeleported(counts: Record<string, number>, shots: number): void {
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(shots);
  expect(Object.keys(counts).filter((k) => k[0] !== '0')).toEqual([]);
  expect(Object.keys(counts).sort()).toEqual(['000', '001', '010', '011']);
}

describe('dynamic circuits over HTTP', () => {
  let app: App;
  let checker: ResponseChecker;
  beforeAll(async () => {
    app = await buildTestApp();
    checker = new ResponseChecker(await openapiDocument(app));
  });
  afterAll(async () => {
    await app.close();
  });

  it('runs on the simulator devices of both providers: teleportation with feed-forward is exact on every shot', async () => {
    const u = await signUp(app);
    for (const provider of ['provider-one', 'provider-two']) {
      const r = await app.inject({
        method: 'POST',
        url: `/v1/execute/${provider}`,
        headers: u.auth,
        payload: { circuit: teleportUndo, shots: 2000, seed: 7, client_token: `dyn-${provider}`, result_types: ['counts', 'memory', 'statevector'] },
      });
      expect(r.statusCode).toBe(200);
      expect(checker.check('POST', `/v1/execute/${provider}`, r.statusCode, r.headers, r.body)).toEqual([]);
      const d = r.json().data;
      expect(d).toMatchObject({ status: 'completed', kind: 'simulator' });
      expectTeleported(d.results.counts, 2000);
      // Per-shot memory agrees with the counts; a dynamic run has no single final state.
      const memory = d.results.memory as string[];
      expect(memory).toHaveLength(2000);
      const tally: Record<string, number> = {};
      for (const m of memory) tally[m] = (tally[m] ?? 0) + 1;
      expect(tally).toEqual(d.results.counts);
      expect(d.results.statevector).toBeUndefined();
      expect(JSON.stringify(d.results)).toContain('conditioned gates');
    }
    await expectWallet(app, u.auth, '0.000000', '0.000000');
  });

  it('a queued (async) run goes through the stored wire circuit and the worker with its conditions kept', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: teleportUndo, shots: 1500, seed: 3, client_token: 'dyn-async', async: true } });
    expect(r.statusCode).toBe(202);
    const id = r.json().data.job_id as string;
    await settleExecutionJob(app, id);
    const d = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${id}`, headers: u.auth })).json().data;
    expect(d.status).toBe('completed');
    expectTeleported(d.results.counts, 1500);
  });

  it('devices list supports_dynamic_circuits: the simulators only', async () => {
    const u = await signUp(app);
    const seen: Record<string, boolean> = {};
    for (const provider of ['provider-one', 'provider-two']) {
      const r = await app.inject({ method: 'GET', url: `/v1/execute/${provider}/devices`, headers: u.auth });
      expect(r.statusCode).toBe(200);
      expect(checker.check('GET', `/v1/execute/${provider}/devices`, r.statusCode, r.headers, r.body)).toEqual([]);
      for (const dev of r.json().data.devices as Array<{ id: string; kind: string; supports_dynamic_circuits: boolean }>) {
        expect(dev.supports_dynamic_circuits).toBe(dev.kind === 'simulator');
        seen[dev.id] = dev.supports_dynamic_circuits;
      }
    }
    expect(seen).toMatchObject({ 'p1-simulator': true, 'p2-local-simulator': true, 'p2-grid-9': false, 'p2-ion-11': false });
  });

  it('a run on hardware without dynamic circuits answers 422 before any quote or hold; without conditions still 409 hold required', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: teleportUndo, device: 'p2-ion-11', shots: 100, client_token: 'dyn-hw' } });
    expect(r.statusCode).toBe(422);
    expect(checker.check('POST', '/v1/execute/provider-two', r.statusCode, r.headers, r.body)).toEqual([]);
    expect(r.json().error).toMatchObject({ code: 'DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED', details: { device: 'p2-ion-11', op_index: 8 } });
    const plain = {
      ...teleportUndo,
      gates: teleportUndo.gates.map((g) => ({ op: g.op, qubits: g.qubits, ...(g.params === undefined ? {} : { params: g.params }), ...(g.clbits === undefined ? {} : { clbits: g.clbits }) })),
    };
    const p = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: u.auth, payload: { circuit: plain, device: 'p2-ion-11', shots: 100, client_token: 'dyn-hw-plain' } });
    expect(p.statusCode).toBe(409);
    expect(p.json().error.code).toBe('EXECUTION_HOLD_REQUIRED');
  });

  it('a held continuation on a device without dynamic circuits is refused before any task is taken (nothing charged)', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 5_000_000n);
    const held = await holdGridTasks(app, u.auth, 2);
    await expectWallet(app, u.auth, '4.220000', '0.780000');
    const r = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: teleportUndo, client_token: 'dyn-held', seed: 1 } });
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED', details: { device: 'p2-grid-9' } });
    const b = await app.inject({
      method: 'POST',
      url: `/v1/execute/provider-two/held/${held.job_id}/batch`,
      headers: u.auth,
      payload: { circuits: [teleportUndo], client_token: 'dyn-held-b', seed: 1 },
    });
    expect(b.statusCode).toBe(422);
    expect(b.json().error.code).toBe('DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED');
    // The hold keeps both tasks and all its money; no execution job exists.
    await expectWallet(app, u.auth, '4.220000', '0.780000');
    const job = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(job).toMatchObject({ status: 'held', device: 'p2-grid-9', results: null });
    const n = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution_jobs WHERE account_id = $1', [u.accountId]);
    expect(n.rows[0]!.n).toBe(0);
    await expectLedgerInvariants(app);
    await expectExecutionInvariants(app);
  });
});
