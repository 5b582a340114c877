import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';

/**
 * Issue 34 item 10b: a condition reads its register's whole width, compared exactly (BigInt):
 * QASMBench's counterfeit-coin circuits compare 64- to 301-bit registers with values above 2^53.
 * Import (OpenQASM 2 and 3), the wire format (values above 2^53 as decimal strings), export and
 * the simulator all keep the exact value.
 */
describe('conditions wider than 32 bits', () => {
  let app: App;
  let auth: { authorization: string };
  beforeAll(async () => {
    app = await buildTestApp();
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
  });

  type Data = {
    valid: boolean;
    errors: { path: string; code: string; message: string }[];
    circuit: Record<string, unknown> & { gates: { op: string; condition?: { clbits: number[]; value: unknown } }[] };
    qasm?: string;
  };
  const validate = async (circuit: unknown, output_format?: string): Promise<Data> => {
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit, ...(output_format === undefined ? {} : { output_format }) } });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().data;
  };
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  const TWO_63 = '9223372036854775808';
  // 2^99 + 1 and 2^99 are the same double: only an exact comparison tells them apart.
  const TWO_99_PLUS_1 = (2n ** 99n + 1n).toString();
  const TWO_99 = (2n ** 99n).toString();

  it('QASMBench-style 64-bit condition: OpenQASM 2 import, wire format, export back', async () => {
    const source = `OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q0[2];\ncreg c0[64];\nx q0[1];\nmeasure q0[1] -> c0[63];\nif(c0==${TWO_63}) h q0[0];\n`;
    const d = await validate({ format: 'qasm2', source }, 'qasm2');
    expect(d.errors).toEqual([]);
    expect(d.valid).toBe(true);
    const cond = d.circuit.gates.find((g) => g.condition !== undefined)!.condition!;
    expect(cond).toEqual({ clbits: range(64), value: TWO_63 });
    expect(d.qasm).toContain(`if(c0==${TWO_63}) h q0[0];`);
    // The wire circuit it gave validates back to the same circuit and the same OpenQASM 2 and 3.
    const back = await validate(d.circuit, 'qasm2');
    expect(back.valid).toBe(true);
    expect(back.circuit).toEqual(d.circuit);
    expect(back.qasm).toBe(d.qasm);
    const q3 = await validate(d.circuit, 'qasm3');
    expect(q3.qasm).toContain(`if (c0 == ${TWO_63}) h q0[0];`);
    const fromQ3 = await validate({ format: 'qasm3', source: q3.qasm });
    expect(fromQ3.valid).toBe(true);
    expect(fromQ3.circuit.gates).toEqual(d.circuit.gates);
  });

  it('wire format: small values stay numbers, large ones are decimal strings; unsafe numbers and values too wide are refused at their path', async () => {
    const wire = (value: unknown, clbits = range(64)) => ({ schema: '0.2', num_qubits: 1, num_clbits: 64, gates: [{ op: 'x', qubits: [0], condition: { clbits, value } }] });
    expect((await validate(wire(5))).circuit.gates[0]!.condition!.value).toBe(5);
    // A small value sent as a string comes back as a number (one canonical form).
    expect((await validate(wire('5'))).circuit.gates[0]!.condition!.value).toBe(5);
    expect((await validate(wire(TWO_63))).circuit.gates[0]!.condition!.value).toBe(TWO_63);
    expect((await validate(wire('18446744073709551615'))).valid).toBe(true);
    const unsafe = await validate(wire(2 ** 60));
    expect(unsafe.errors).toEqual([expect.objectContaining({ path: '/circuit/gates/0/condition/value', code: 'CONDITION_INVALID' })]);
    expect(unsafe.errors[0]!.message).toMatch(/decimal string/);
    const tooBig = await validate(wire('18446744073709551616'));
    expect(tooBig.errors).toEqual([expect.objectContaining({ path: '/circuit/gates/0/condition/value', code: 'CONDITION_INVALID' })]);
    const notDecimal = await validate(wire('0x10'));
    expect(notDecimal.errors).toEqual([expect.objectContaining({ path: '/circuit/gates/0/condition/value', code: 'CONDITION_INVALID' })]);
  });

  // 4 qubits, a 100-bit register: c[99] and c[0] set by x + measure; then gates conditioned on the
  // whole register: on 2^99 + 1 (true) and on 2^99 (false, though equal as doubles).
  const hundred = (version: 2 | 3) =>
    version === 2
      ? `OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[4];\ncreg c[100];\nx q[0];\nx q[1];\nmeasure q[0] -> c[99];\nmeasure q[1] -> c[0];\nif(c==${TWO_99_PLUS_1}) x q[2];\nif(c==${TWO_99}) x q[3];\nmeasure q[2] -> c[1];\nmeasure q[3] -> c[2];\n`
      : `OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[4] q;\nbit[100] c;\nx q[0];\nx q[1];\nc[99] = measure q[0];\nc[0] = measure q[1];\nif (c == ${TWO_99_PLUS_1}) x q[2];\nif (c == ${TWO_99}) x q[3];\nc[1] = measure q[2];\nc[2] = measure q[3];\n`;
  const expected = `1${'0'.repeat(96)}011`;

  it('a 100-bit condition round-trips through OpenQASM 2 and 3 and the wire format', async () => {
    for (const v of [2, 3] as const) {
      const d = await validate({ format: `qasm${v}`, source: hundred(v) }, `qasm${v}`);
      expect(d.errors).toEqual([]);
      const conds = d.circuit.gates.filter((g) => g.condition !== undefined).map((g) => g.condition);
      expect(conds).toEqual([
        { clbits: range(100), value: TWO_99_PLUS_1 },
        { clbits: range(100), value: TWO_99 },
      ]);
      const back = await validate({ format: `qasm${v}`, source: d.qasm });
      expect(back.circuit).toEqual(d.circuit);
      const wire = await validate(d.circuit, `qasm${v}`);
      expect(wire.qasm).toBe(d.qasm);
    }
  });

  it('the simulator compares the whole register exactly: only the gate on the full value fires', async () => {
    for (const v of [2, 3] as const) {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/execute/provider-two',
        headers: auth,
        payload: { circuit: { format: `qasm${v}`, source: hundred(v) }, shots: 20, client_token: `wide-${v}` },
      });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().data.results.counts).toEqual({ [expected]: 20 });
    }
    // The same from the wire format (decimal-string values).
    const wire = (await validate({ format: 'qasm2', source: hundred(2) })).circuit;
    const r = await app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: auth, payload: { circuit: wire, shots: 20, client_token: 'wide-wire' } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().data.results.counts).toEqual({ [expected]: 20 });
    // Analysis reads it too.
    const a = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', headers: auth, payload: { circuit: wire } });
    expect(a.statusCode, a.body).toBe(200);
    expect(a.json().data.conditioned_gate_count).toBe(2);
  });
});
