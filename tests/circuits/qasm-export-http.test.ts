import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object });

const SOURCE = `OPENQASM 2.0;
include "qelib1.inc";
gate entangle(theta) a, b { h a; cx a, b; rz(theta) b; }
qreg data[2];
qreg anc[1];
creg out[2];
creg flag[1];
entangle(pi/3) data[0], data[1];
cx data[1], anc[0];
measure data -> out;
measure anc[0] -> flag[0];
`;

describe('OpenQASM export keeps names (POST /v1/circuits/validate)', () => {
  it('keeps register names and writes pi/3 by default, with user gates inlined', async () => {
    const r = await post('/v1/circuits/validate', { circuit: { format: 'qasm2', source: SOURCE }, output_format: 'qasm2' });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.valid).toBe(true);
    expect(d.circuit.quantum_registers).toEqual([
      { name: 'data', size: 2 },
      { name: 'anc', size: 1 },
    ]);
    expect(d.circuit.registers).toEqual([
      { name: 'out', size: 2 },
      { name: 'flag', size: 1 },
    ]);
    expect(d.circuit.gate_definitions).toBeUndefined();
    expect(d.qasm).toContain('qreg data[2];\nqreg anc[1];\ncreg out[2];\ncreg flag[1];\nh data[0];\ncx data[0], data[1];\nrz(pi/3) data[1];\ncx data[1], anc[0];');
    // The wire circuit sent back as JSON exports the same text.
    const again = await post('/v1/circuits/validate', { circuit: d.circuit, output_format: 'qasm2' });
    expect(again.json().data.qasm).toBe(d.qasm);
  });

  it('with output.inline_gates false keeps the gate definition and the call; the re-import equals the original', async () => {
    const r = await post('/v1/circuits/validate', { circuit: { format: 'qasm2', source: SOURCE }, output_format: 'qasm3', output: { inline_gates: false } });
    const d = r.json().data;
    expect(d.warnings).toEqual([]);
    expect(d.circuit.gate_definitions).toEqual([{ name: 'entangle', params: ['theta'], qubits: ['a', 'b'], body: 'h a; cx a, b; rz(theta) b;' }]);
    expect(d.circuit.gate_calls).toEqual([{ gate: 'entangle', params: [Math.PI / 3], qubits: [0, 1], start: 0, count: 3 }]);
    expect(d.qasm).toContain(
      'gate entangle(theta) a, b { h a; cx a, b; rz(theta) b; }\nqubit[2] data;\nqubit[1] anc;\nbit[2] out;\nbit[1] flag;\nentangle(pi/3) data[0], data[1];\ncx data[1], anc[0];',
    );
    const original = (await post('/v1/circuits/validate', { circuit: { format: 'qasm2', source: SOURCE } })).json().data.circuit;
    const back = (await post('/v1/circuits/validate', { circuit: { format: 'qasm3', source: d.qasm } })).json().data.circuit;
    expect(back).toEqual(original);
    // JSON round trip: the wire circuit with its definitions exports the same text.
    const json = await post('/v1/circuits/validate', { circuit: d.circuit, output_format: 'qasm3', output: { inline_gates: false } });
    expect(json.json().data.qasm).toBe(d.qasm);
  });

  it('bounds the kept definitions with TOO_MANY_DEFINITIONS and refuses unknown output options', async () => {
    const source = Array.from({ length: 257 }, (_, i) => `gate g${i} a { x a; }`).join('\n') + '\nqreg q[1];\ng0 q[0];';
    const r = await post('/v1/circuits/validate', { circuit: { format: 'qasm3', source }, output: { inline_gates: false } });
    expect(r.json().data.errors).toEqual([expect.objectContaining({ path: '/circuit/source', code: 'TOO_MANY_DEFINITIONS' })]);
    const bad = await post('/v1/circuits/validate', { circuit: { format: 'qasm3', source: 'qubit q;' }, output: { inline: false } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('POST /v1/circuits/optimize with output.inline_gates false', () => {
  it('keeps the calls the optimizer left unchanged and inlines the changed one, with a warning', async () => {
    const source = `OPENQASM 3.0;
include "stdgates.inc";
gate bell a, b { h a; cx a, b; }
gate twice a { x a; x a; }
qubit[3] q;
twice q[2];
bell q[0], q[1];
`;
    const r = await post('/v1/circuits/optimize', { circuit: { format: 'qasm3', source }, profile: 'safe', output_format: 'qasm3', output: { inline_gates: false } });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.warnings).toEqual([expect.stringContaining('1 of 2 user gate calls')]);
    expect(d.qasm).toContain('gate bell a, b { h a; cx a, b; }\ngate twice a { x a; x a; }\nqubit[3] q;\nbell q[0], q[1];\n');
    expect(d.circuit.gate_calls).toEqual([{ gate: 'bell', qubits: [0, 1], start: 0, count: 2 }]);
    const back = (await post('/v1/circuits/validate', { circuit: { format: 'qasm3', source: d.qasm } })).json().data.circuit;
    expect(back.gates).toEqual(d.circuit.gates);
  });
});
