import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure, type Circuit } from '../../src/circuits/ir.js';
import { getDevice, type DeviceSpec } from '../../src/devices/device-catalogue.js';
import { AppError } from '../../src/errors/app-error.js';
import { translateForDevice } from '../../src/execution/translate/translate-for-device.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { branches, recordProbabilities } from '../helpers/dynamic-branches.js';

const SOURCE = `OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
h q[0];
for int i in [0:1] {
  c[i] = measure q[i];
  if (c[i]) x q[i+1];
}
if (c == 3) rz(pi/4) q[2];
c[2] = measure q[2];
`;

let app: App;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('a QASM 3 if/for program over HTTP', () => {
  it('validate: valid, the loop unrolled, conditioned gates in the normalized wire circuit', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: 'qasm3', source: SOURCE } } });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.valid).toBe(true);
    expect(data.summary.gate_count).toBe(4);
    expect(data.circuit.gates).toEqual([
      { op: 'h', qubits: [0] },
      { op: 'measure', qubits: [0], clbits: [0] },
      { op: 'x', qubits: [1], condition: { clbits: [0], value: 1 } },
      { op: 'measure', qubits: [1], clbits: [1] },
      { op: 'x', qubits: [2], condition: { clbits: [1], value: 1 } },
      { op: 'rz', qubits: [2], params: [Math.PI / 4], condition: { clbits: [0, 1, 2], value: 3 } },
    ]);
    expect(data.circuit.measurements).toEqual([{ qubit: 2, clbit: 2 }]);
  });

  it('analyze: dynamic, conditioned gates counted, hardware devices incompatible, simulators compatible', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: { format: 'qasm3', source: SOURCE } } });
    expect(res.statusCode).toBe(200);
    const a = res.json().data;
    expect(a.dynamic).toBe(true);
    expect(a.conditioned_gate_count).toBe(3);
    expect(a.gate_count).toBe(4);
    // h, measure; x after the measurement of c[0]; measure q1 after that x; x on q2 after it; rz after c reads; measure
    expect(a.depth).toBe(7);
    const devices = a.compatibility.flatMap((p: { devices: { device: string; status: string; reasons: string[] }[] }) => p.devices);
    const grid = devices.find((d: { device: string }) => d.device === 'p2-grid-9');
    expect(grid.status).toBe('incompatible');
    expect(grid.reasons.join(' ')).toMatch(/dynamic circuits/);
    expect(devices.find((d: { device: string }) => d.device === 'p1-simulator').status).toBe('compatible');
  });

  it('a wire condition with a bad value answers 400 CIRCUIT_INVALID at its JSON path', async () => {
    const circuit = { schema: '0.2', num_qubits: 1, num_clbits: 1, gates: [{ op: 'x', qubits: [0], condition: { clbits: [0], value: 3 } }] };
    const res = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toContainEqual(expect.objectContaining({ path: '/circuit/gates/0/condition/value', code: 'CONDITION_INVALID' }));
  });

  it('a for loop of 10^9 iterations answers 400 TOO_MANY_GATES at once', async () => {
    const t0 = performance.now();
    const source = 'OPENQASM 3.0;\nqubit[1] q;\nfor int i in [0:999999999] { x q[0]; }';
    const res = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: 'qasm3', source } } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.valid).toBe(false);
    expect(res.json().data.errors).toContainEqual(expect.objectContaining({ code: 'TOO_MANY_GATES', line: 3 }));
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('export: the validated circuit written as QASM 3 reads back the same', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: 'qasm3', source: SOURCE }, output_format: 'qasm3' } });
    const data = res.json().data;
    expect(data.qasm).toContain('if (c[0]) x q[1];');
    expect(data.qasm).toContain('if (c == 3) rz(pi/4) q[2];');
    const back = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: 'qasm3', source: data.qasm } } });
    expect(back.json().data.circuit.gates).toEqual(data.circuit.gates);
    // QASM 2 cannot write `if (c[0])` (one bit of a 3-bit register): a clear 400
    const q2 = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: 'qasm3', source: SOURCE }, output_format: 'qasm2' } });
    expect(q2.statusCode).toBe(400);
    expect(q2.json().error.details).toContainEqual(expect.objectContaining({ code: 'CONDITION_INVALID', path: '/gates/2/condition' }));
  });
});

describe('translation of dynamic circuits to devices', () => {
  const dynamic = circuit(3, 3, [
    gate('h', [0]),
    measure(0, 0),
    conditioned(gate('h', [2]), { clbits: [0], value: 1 }),
    conditioned(gate('cx', [0, 2]), { clbits: [0], value: 1 }),
    gate('cx', [0, 1]),
    measure(1, 1),
    measure(2, 2),
  ]);

  it('a device without dynamic circuits refuses with 422 DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED, naming the op', () => {
    for (const id of ['p2-grid-9', 'p2-ion-11', 'p1-falcon-7']) {
      try {
        translateForDevice(dynamic, getDevice(id)!);
        throw new Error('translated');
      } catch (e) {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).code).toBe('DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED');
        expect((e as AppError).statusCode).toBe(422);
        expect((e as AppError).details).toMatchObject({ device: id, op_index: 2 });
      }
    }
  });

  it('a device that runs them: conditions kept, gates native and coupled, the outcome distribution unchanged', () => {
    // a line 0-1-2 (q0 and q2 not coupled): the conditioned cx needs routing like any cx
    const line: DeviceSpec = { ...getDevice('p2-grid-9')!, id: 'test-line-3', numQubits: 3, couplingMap: [[0, 1], [1, 2]], supportsMidCircuitMeasurement: true, supportsDynamicCircuits: true };
    const t = translateForDevice(dynamic, line);
    expect(t.verification.equivalent).toBe('skipped');
    for (const op of t.circuit.ops) {
      const g = op.kind === 'conditioned' ? op.gate : op;
      if (g.kind !== 'gate') continue;
      expect(line.nativeGates).toContain(g.name);
      if (g.qubits.length === 2) expect(Math.abs(g.qubits[0]! - g.qubits[1]!)).toBe(1);
    }
    const conds = t.circuit.ops.filter((o) => o.kind === 'conditioned');
    expect(conds.length).toBeGreaterThan(2);
    for (const o of conds) expect(o.kind === 'conditioned' && o.condition).toEqual({ clbits: [0], value: 1 });
    const probs = (c: Circuit) => recordProbabilities(branches(c));
    const a = probs(dynamic);
    const b = probs(t.circuit);
    for (const k of new Set([...a.keys(), ...b.keys()])) expect(Math.abs((a.get(k) ?? 0) - (b.get(k) ?? 0))).toBeLessThan(1e-9);
    // the measurement of clbit 0 stays before the gates that read it
    const firstRead = t.circuit.ops.findIndex((o) => o.kind === 'conditioned');
    const write = t.circuit.ops.findIndex((o) => o.kind === 'measure' && o.clbit === 0);
    expect(write).toBeLessThan(firstRead);
  });
});
