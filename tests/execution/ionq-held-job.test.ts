/**
 * A held hardware job on IonQ (v0.4, the local fake): quote → hold → continue → completed,
 * with the results mapped to the documented bit order (clbit 0 rightmost) and the ledger
 * checked by the operator's `ledger check` afterwards. The fake computes a classical circuit's
 * basis state and answers with IonQ's own key (decimal, qubit 0 least significant), so the
 * mapping from IonQ's state to our key is exercised end to end, layout included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CircuitV02 } from '../../packages/client/src/index.js';
import { ledgerCheckCommand } from '../../src/cli/billing-commands.js';
import { invokeCommand } from '../../src/cli/run-cli.js';
import { loadConfig } from '../../src/config/config.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import { waitFor } from '../helpers/wait-for.js';
import { FakeIonq, fakeIonqEnv } from './fakes/ionq-v04-fake.js';
import { expectWallet, quoteAndHold } from './helpers.js';

/** |q0 = 1, q1 = 0⟩, q0 measured into clbit 0 and q1 into clbit 1: our key is "01" (clbit 0 rightmost). */
const q0Set: CircuitV02 = {
  schema: '0.2',
  num_qubits: 2,
  num_clbits: 2,
  gates: [{ op: 'x', qubits: [0] }],
  measurements: [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
  ],
};

/** The same state with the clbits crossed (q0 → clbit 1): the key is "10". */
const q0SetCrossed: CircuitV02 = {
  ...q0Set,
  measurements: [
    { qubit: 0, clbit: 1 },
    { qubit: 1, clbit: 0 },
  ],
};

const r0Message = (r: { json: () => { error: { details: Array<{ message: string }> } } }) => r.json().error.details[0]!.message;

describe('held hardware job on IonQ v0.4 (fake): quote → hold → continue → completed', () => {
  const fake = new FakeIonq();
  let app: App;
  beforeAll(async () => {
    await fake.start();
    fake.reset({ pollStatuses: ['submitted', 'started', 'completed'], fromCircuit: true });
    app = await buildTestApp(fakeIonqEnv(fake, { EXECUTION_REMOTE_POLL_MS: '1', IONQ_TIMEOUT_MS: '5000' }));
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  async function runHeld(circuit: CircuitV02, token: string) {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const { quote, held } = await quoteAndHold(app, u.auth, 'p2-ionq-qpu', 20);
    expect(quote).toMatchObject({ device: 'p2-ionq-qpu', total: '0.900000' }); // 0.30 + 20 × 0.03
    await expectWallet(app, u.auth, '1.100000', '0.900000');
    const cont = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit, client_token: token } });
    expect(cont.statusCode).toBe(202);
    expect(cont.json().data).toMatchObject({ driver: 'remote', status: 'queued' });
    const done = await waitFor(
      async () => {
        await app.services.executionWorker.drain();
        const j = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
        return (j.status === 'completed' || j.status === 'failed') && j;
      },
      { intervalMs: 5, what: `job ${held.job_id} settled` },
    );
    await expectWallet(app, u.auth, '1.100000', '0.000000');
    return { done, held };
  }

  it('|q0=1, q1=0⟩ comes back as "01"; crossing the clbits gives "10"; charged once', async () => {
    const { done, held } = await runHeld(q0Set, 'ionq-bits-1');
    expect(done).toMatchObject({ status: 'completed', remote: { provider: 'ionq' }, cost: { estimated: '0.900000', actual: '0.900000' } });
    expect(done.results).toMatchObject({ counts: { '01': 20 }, shots: 20, meta: { counts_source: 'ionq probabilities × shots, largest remainder' } });
    expect(done.results.bit_order).toMatch(/clbit 0 rightmost/);
    // What IonQ received: the job tagged with ours, one X (on the qubit the layout chose).
    const sent = [...fake.jobs.values()].find((j) => (j.body['metadata'] as Record<string, string>)['qrail_job_id'] === held.job_id)!;
    expect(sent.body).toMatchObject({ type: 'ionq.circuit.v1', backend: 'qpu.forte-1', shots: 20, input: { gateset: 'qis' } });
    expect((sent.body['input'] as { circuit: Array<{ gate: string }> }).circuit.map((g) => g.gate)).toEqual(['x']);

    const crossed = await runHeld(q0SetCrossed, 'ionq-bits-2');
    expect(crossed.done.results.counts).toEqual({ '10': 20 });
  });

  it('several classical registers: IonQ counts split by register like the simulator, with registers (#34 item 8)', async () => {
    const regs = {
      ...q0Set,
      registers: [
        { name: 'a', size: 1 },
        { name: 'b', size: 1 },
      ],
    } as CircuitV02;
    const { done } = await runHeld(regs, 'ionq-regs-1');
    expect(done.status).toBe('completed');
    expect(done.results.counts).toEqual({ '0 1': 20 });
    expect(done.results.registers).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 1 },
    ]);
  });

  it('the ledger check (the operator command) is clean afterwards', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await invokeCommand(ledgerCheckCommand({ openDb: async () => app.db, keepOpen: true }), [], {
      io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) },
      serverConfig: async () => loadConfig({ DATA_DIR: 'memory://' }),
      remote: { configFile: '/nonexistent/qrail-config.json' },
    });
    expect({ code, err: err.join('') }).toEqual({ code: 0, err: '' });
    expect(out.join('')).toMatch(/^ledger OK: \d+ transfers/);
  });

  it('memory and expectation are refused on IonQ (histograms only) before anything is taken', async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 2_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-ionq-qpu', 20);
    for (const [i, payload] of [{ result_types: ['counts', 'memory'] }, { result_types: ['expectation'], observables: [{ pauli: 'ZZ', coeff: 1 }] }].entries()) {
      const r = await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: q0Set, client_token: `ionq-rt-${i}`, ...payload } });
      expect(r.statusCode, r.body).toBe(422);
      expect(r.json().error).toMatchObject({ code: 'EXECUTION_RESULT_TYPE_UNSUPPORTED', details: [{ path: `/result_types/${i === 0 ? 1 : 0}`, code: 'RESULT_TYPE_UNSUPPORTED' }] });
    }
    expect(
      r0Message(
        await app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${held.job_id}`, headers: u.auth, payload: { circuit: q0Set, client_token: 'ionq-rt-m', result_types: ['memory'] } }),
      ),
    ).toMatch(/histograms/);
    await expectWallet(app, u.auth, '1.100000', '0.900000');
    const page = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
    expect(page.status).toBe('held');
  });

  it("IonQ's debiasing asked: sent as settings.error_mitigation.debiasing true, the answer says IonQ mitigated natively; refused elsewhere and under 500 shots", async () => {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 40_000_000n);
    const { held } = await quoteAndHold(app, u.auth, 'p2-ionq-qpu', 500);
    const cont = (payload: Record<string, unknown>, jobId = held.job_id) =>
      app.inject({ method: 'POST', url: `/v1/execute/provider-two/held/${jobId}`, headers: u.auth, payload: { circuit: q0Set, ...payload } });
    const both = await cont({ mitigation: { debiasing: true, readout: true }, client_token: 'deb-0' });
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_INVALID', details: [{ path: '/mitigation/debiasing', code: 'NATIVE_NOT_COMBINABLE' }] });
    const before = fake.jobs.size;
    expect((await cont({ mitigation: { debiasing: true }, client_token: 'deb-1' })).statusCode).toBe(202);
    const done = await waitFor(
      async () => {
        await app.services.executionWorker.drain();
        const j = (await app.inject({ method: 'GET', url: `/v1/execute/provider-two/${held.job_id}`, headers: u.auth })).json().data;
        return (j.status === 'completed' || j.status === 'failed') && j;
      },
      { intervalMs: 5, what: `job ${held.job_id} settled` },
    );
    expect(fake.jobs.size - before).toBe(1);
    const sent = [...fake.jobs.values()].at(-1)!.body;
    expect(sent['settings']).toEqual({ error_mitigation: { debiasing: true } });
    expect(done.status).toBe('completed');
    expect(done.results.counts).toEqual({ '01': 500 });
    expect(done.results.mitigation).toMatchObject({ applied_by: 'ionq', native: true, debiasing: { applied: true, option: 'settings.error_mitigation.debiasing' } });
    expect(done.results.mitigation).not.toHaveProperty('readout');

    // Not an IonQ QPU: the emulated p2-grid-9 has no native debiasing; and IonQ needs 500 shots.
    const grid = await quoteAndHold(app, u.auth, 'p2-grid-9', 500);
    const r = await cont({ mitigation: { debiasing: true }, client_token: 'deb-2' }, grid.held.job_id);
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_UNSUPPORTED', details: [{ path: '/mitigation/debiasing', code: 'DEBIASING_UNSUPPORTED' }] });
    const few = await quoteAndHold(app, u.auth, 'p2-ionq-qpu', 20);
    const f = await cont({ mitigation: { debiasing: true }, client_token: 'deb-3' }, few.held.job_id);
    expect(f.statusCode).toBe(422);
    expect(f.json().error).toMatchObject({ code: 'EXECUTION_MITIGATION_UNSUPPORTED', details: [{ code: 'DEBIASING_TOO_FEW_SHOTS' }] });
  });
});
