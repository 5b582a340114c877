import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../src/circuits/ir.js';
import type { App } from '../../src/http/app-types.js';
import { createComputePool } from '../../src/compute/compute-pool.js';
import { buildTestApp } from '../helpers/app.js';

const circuit = {
  schema: '0.2',
  num_qubits: 3,
  num_clbits: 0,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'h', qubits: [0] },
    { op: 't', qubits: [1] },
    { op: 'cx', qubits: [1, 2] },
    { op: 't', qubits: [1] },
    { op: 'cx', qubits: [0, 1] },
    { op: 'x', qubits: [2] },
    { op: 'x', qubits: [2] },
  ],
  measurements: [],
  metadata: {},
};

let app: App;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

const post = (body: unknown) => app.inject({ method: 'POST', url: '/v1/circuits/optimize', payload: body as Record<string, unknown> });

describe('POST /v1/circuits/optimize', () => {
  it('returns the optimized circuit, metrics, passes and a verified proof', async () => {
    const res = await post({ circuit, profile: 'balanced' });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.metrics_before.total).toBe(8);
    expect(data.metrics_after.total).toBeLessThan(8);
    expect(data.metrics_after.t_count).toBe(0);
    expect(data.proof.verified).toBe(true);
    // local rewrites only here: the certificate alone proves the result (a whole-circuit check joins it for global ones)
    expect(data.proof.methods.map((m: { method: string }) => m.method)).toEqual(['certificate-replay']);
    expect(data.metrics_after).toMatchObject({ cost_model: 'nam', target_total: data.metrics_after.total });
    expect(data.proof.certificate.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(data.proof.certificate.steps.length).toBe(data.proof.certificate.step_count);
    expect(data.passes).toContain('phase-polynomial-rotation-merging');
    expect(data.circuit.schema).toBe('0.2');
  });

  it('defaults to the safe profile and the generic backend', async () => {
    const res = await post({ circuit });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ profile: 'safe', backend_hint: 'generic', device: null });
  });

  it('translates to provider-one native gates', async () => {
    const res = await post({ circuit, profile: 'balanced', backend_hint: 'provider-one' });
    expect(res.statusCode).toBe(200);
    const names = new Set(res.json().data.circuit.gates.map((g: { op: string }) => g.op));
    for (const n of names) expect(['rz', 'sx', 'x', 'cx']).toContain(n);
  });

  it('offers the optimized circuit as OpenQASM 2 or 3 (output_format), the same circuit as the JSON', async () => {
    for (const fmt of ['qasm2', 'qasm3'] as const) {
      const res = await post({ circuit, profile: 'balanced', output_format: fmt });
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.qasm).toMatch(fmt === 'qasm2' ? /^OPENQASM 2\.0;/ : /^OPENQASM 3(\.0)?;/);
      // The text imports back to exactly the returned wire circuit.
      const back = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: fmt, source: data.qasm } } });
      expect(back.json().data.circuit.gates).toEqual(data.circuit.gates);
    }
    const json = await post({ circuit, profile: 'balanced' });
    expect(json.json().data.qasm).toBeUndefined();
  });

  it('rejects an unknown profile with 400 VALIDATION_FAILED', async () => {
    const res = await post({ circuit, profile: 'extreme' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_FAILED');
  });

  it('rejects an invalid circuit with its JSON path', async () => {
    const res = await post({ circuit: { ...circuit, gates: [{ op: 'cx', qubits: [0, 7] }] } });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error.details)).toContain('/circuit/gates/0/qubits/1');
  });

  it('fails closed with 422 OPTIMIZATION_UNVERIFIED when a planted unsound rule fires', async () => {
    // Planted through an in-process compute pool given to this app only: functions cannot cross to
    // a compute thread, and no other app (or test) sees the rule.
    const inProcess = await buildTestApp(
      {},
      {
        compute: createComputePool({
          threads: 0,
          unsoundRules: [
            {
              claim: 'cancel-inverse',
              find(ops: readonly Operation[]) {
                const i = ops.findIndex((o) => o.kind === 'gate' && o.name === 'cx');
                return i < 0 ? null : { positions: [i], inserted: [] }; // "a CNOT is the identity"
              },
            },
          ],
        }),
      },
    );
    try {
      const res = await inProcess.inject({ method: 'POST', url: '/v1/circuits/optimize', payload: { circuit, profile: 'aggressive' } });
      expect(res.statusCode).toBe(422);
      const body = res.json();
      expect(body.status).toBe('error');
      expect(body.error.code).toBe('OPTIMIZATION_UNVERIFIED');
      expect(body.error.details.reason).toMatch(/certificate replay failed/);
      expect(body.data).toBeUndefined();
    } finally {
      await inProcess.close();
    }
  });
});
