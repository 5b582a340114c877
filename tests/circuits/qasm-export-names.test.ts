import { describe, expect, it } from 'vitest';
import { circuit, gate, withOps } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { formatAngle, qasmOutput, toQasm2, toQasm3 } from '../../src/circuits/qasm/export-qasm.js';
import { parseCircuitInput, toWire, DEFAULT_CIRCUIT_LIMITS } from '../../src/circuits/wire-format.js';
import { AppError } from '../../src/errors/app-error.js';

const QASM2 = `OPENQASM 2.0;
include "qelib1.inc";
qreg a[2];
qreg anc[1];
creg m[2];
creg flag[1];
h a[0];
cx a[0], anc[0];
rz(pi/3) a[1];
measure a -> m;
measure anc[0] -> flag[0];
`;

/** JSON round trip: the wire format of the circuit, read back. */
function viaWire(c: ReturnType<typeof parseQasm>) {
  const r = parseCircuitInput(JSON.parse(JSON.stringify(toWire(c))) as unknown, DEFAULT_CIRCUIT_LIMITS);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.circuit;
}

describe('QASM export keeps register names', () => {
  it('QASM 2 → wire → QASM 2 keeps qreg and creg names in declared order, and pi/3', () => {
    const c = parseQasm(QASM2);
    expect(c.quantumRegisters).toEqual([
      { name: 'a', size: 2 },
      { name: 'anc', size: 1 },
    ]);
    const w = toWire(c);
    expect(w.quantum_registers).toEqual([
      { name: 'a', size: 2 },
      { name: 'anc', size: 1 },
    ]);
    const back = viaWire(c);
    expect(back).toEqual(c);
    const text = toQasm2(back);
    expect(text).toContain('qreg a[2];\nqreg anc[1];\ncreg m[2];\ncreg flag[1];');
    expect(text).toContain('cx a[0], anc[0];');
    expect(text).toContain('rz(pi/3) a[1];');
    expect(text).toContain('measure anc[0] -> flag[0];');
    expect(parseQasm(text)).toEqual(c);
  });

  it('QASM 3 keeps qubit and bit register names, scalar qubits as registers of one', () => {
    const src = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] data;\nqubit flag;\nbit[2] out;\nbit f;\ncx data[1], flag;\nout = measure data;\nf = measure flag;\n';
    const c = parseQasm(src);
    const text = toQasm3(viaWire(c));
    expect(text).toContain('qubit[2] data;\nqubit[1] flag;\nbit[2] out;\nbit[1] f;');
    expect(text).toContain('cx data[1], flag[0];');
    expect(text).toContain('f[0] = measure flag[0];');
    expect(parseQasm(text)).toEqual(c);
  });

  it('the default layout (one register q) is not stored', () => {
    const c = parseQasm('OPENQASM 2.0;\nqreg q[2];\nh q[0];');
    expect(c.quantumRegisters).toBeUndefined();
    expect(toWire(c).quantum_registers).toBeUndefined();
    expect(c).toEqual(circuit(2, 0, [gate('h', [0])]));
  });

  it('a single classical register keeps its name (only one called c over every clbit is the default)', () => {
    const c = parseQasm('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg meas[2];\nh q[0];\nmeasure q -> meas;\n');
    expect(c.registers).toEqual([{ name: 'meas', size: 2 }]);
    expect(toWire(c).registers).toEqual([{ name: 'meas', size: 2 }]);
    const back = viaWire(c);
    expect(back).toEqual(c);
    expect(toQasm2(back)).toContain('creg meas[2];\nh q[0];\nmeasure q[0] -> meas[0];\nmeasure q[1] -> meas[1];');
    expect(toQasm3(back)).toContain('bit[2] meas;');
    expect(parseQasm(toQasm3(back))).toEqual(c);
    const plain = parseQasm('OPENQASM 2.0;\nqreg q[1];\ncreg c[1];\nmeasure q[0] -> c[0];');
    expect(plain.registers).toBeUndefined();
  });

  it('a wire circuit whose classical register is called q exports its qubits under another name', () => {
    const w = { schema: '0.2', num_qubits: 1, num_clbits: 1, registers: [{ name: 'q', size: 1 }], gates: [{ op: 'x', qubits: [0] }], measurements: [{ qubit: 0, clbit: 0 }] };
    const r = parseCircuitInput(w, DEFAULT_CIRCUIT_LIMITS);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const text = toQasm3(r.circuit);
    expect(text).toContain('qubit[1] q_;\nbit[1] q;');
    expect(text).toContain('q[0] = measure q_[0];');
    expect(parseQasm(text).registers).toEqual([{ name: 'q', size: 1 }]);
  });

  it('withOps keeps the quantum registers; the wire refuses a layout that does not fit', () => {
    const c = parseQasm(QASM2);
    expect(withOps(c, [gate('x', [2])]).quantumRegisters).toEqual(c.quantumRegisters);
    const bad = { ...toWire(c), quantum_registers: [{ name: 'a', size: 2 }] };
    const r = parseCircuitInput(bad, DEFAULT_CIRCUIT_LIMITS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([expect.objectContaining({ path: '/quantum_registers', code: 'REGISTERS_MISMATCH' })]);
    const clash = { ...toWire(c), quantum_registers: [{ name: 'm', size: 3 }] };
    const r2 = parseCircuitInput(clash, DEFAULT_CIRCUIT_LIMITS);
    if (r2.ok) throw new Error('a quantum register named like a classical one was accepted');
    expect(r2.errors).toEqual([expect.objectContaining({ path: '/registers/0/name', code: 'DUPLICATE_PARAMETER' })]);
    const many = { ...toWire(c), num_qubits: 65, quantum_registers: Array.from({ length: 65 }, (_, i) => ({ name: `r${i}`, size: 1 })) };
    const r3 = parseCircuitInput(many, { ...DEFAULT_CIRCUIT_LIMITS, maxQubits: 128 });
    if (r3.ok) throw new Error('65 quantum registers were accepted');
    expect(r3.errors).toEqual([expect.objectContaining({ path: '/quantum_registers', code: 'TOO_MANY_PARAMETERS' })]);
  });

  it('the importer refuses more than 64 registers of a kind with TOO_MANY_PARAMETERS', () => {
    const src = Array.from({ length: 65 }, (_, i) => `qreg r${i}[1];`).join('\n');
    try {
      parseQasm(src);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).details).toEqual([expect.objectContaining({ code: 'TOO_MANY_PARAMETERS', line: 65 })]);
    }
  });

  it('angles print as multiples of pi where exact', () => {
    expect(formatAngle(Math.PI / 3)).toBe('pi/3');
    expect(formatAngle((-5 * Math.PI) / 12)).toBe('-5*pi/12');
    expect(formatAngle(0.3)).toBe('0.3');
  });
});

const WITH_GATES = `OPENQASM 2.0;
include "qelib1.inc";
gate foo(a) q0, q1 { rz(2*a) q0; // a comment
  cx q0,q1; u1(-a/2) q1; }
gate bar q0, q1 { foo(pi/3) q0, q1; h q1; }
qreg a[2];
qreg b[2];
creg c[2];
foo(0.3) a[0], a[1];
h b[0];
foo(pi/3) a, b;
bar b[1], a[0];
measure a -> c;
`;

describe('QASM export keeps user gate definitions with inline_gates: false', () => {
  it('writes the definitions and the calls; the re-import has the same ops', () => {
    const c = parseQasm(WITH_GATES, { keepGateDefinitions: true });
    expect(c.gateDefinitions?.map((d) => d.body)).toEqual(['rz(2*a) q0; cx q0, q1; u1(-a/2) q1;', 'foo(pi/3) q0, q1; h q1;']);
    const warnings: string[] = [];
    const text = qasmOutput(c, 'qasm2', { inlineGates: false, warnings }).qasm!;
    expect(warnings).toEqual([]);
    expect(text).toContain('gate foo(a) q0, q1 { rz(2*a) q0; cx q0, q1; u1(-a/2) q1; }\ngate bar q0, q1 { foo(pi/3) q0, q1; h q1; }');
    expect(text).toContain('foo(0.3) a[0], a[1];\nh b[0];\nfoo(pi/3) a[0], b[0];\nfoo(pi/3) a[1], b[1];\nbar b[1], a[0];\nmeasure a[0] -> c[0];');
    expect(text).not.toMatch(/^rz/m);
    expect(parseQasm(text).ops).toEqual(parseQasm(WITH_GATES).ops);
    // Through the wire format (a JSON round trip keeps definitions and calls) and QASM 3.
    const back = viaWire(c);
    expect(back).toEqual(c);
    expect(parseQasm(qasmOutput(back, 'qasm3', { inlineGates: false }).qasm!, { keepGateDefinitions: true })).toEqual(c);
  });

  it('keeps calls in a circuit with more clbits than the importer allows per qubit', () => {
    const c = parseQasm('OPENQASM 3.0;\ngate flip a { x a; }\nqubit q;\nbit[6] m;\nflip q;\nm[5] = measure q;', { keepGateDefinitions: true });
    const warnings: string[] = [];
    const text = qasmOutput(c, 'qasm3', { inlineGates: false, warnings }).qasm!;
    expect(warnings).toEqual([]);
    expect(text).toContain('bit[6] m;\nflip q[0];\nm[5] = measure q[0];');
  });

  it('the default stays inlined, and does not record definitions', () => {
    const c = parseQasm(WITH_GATES);
    expect(c.gateDefinitions).toBeUndefined();
    expect(qasmOutput(c, 'qasm2').qasm).not.toContain('gate foo');
    const kept = parseQasm(WITH_GATES, { keepGateDefinitions: true });
    expect(qasmOutput(kept, 'qasm2').qasm).toBe(qasmOutput(c, 'qasm2').qasm);
  });

  it('a changed circuit keeps the calls whose ops are unchanged (moved), inlines the others with a warning', () => {
    const c = parseQasm(WITH_GATES, { keepGateDefinitions: true });
    // The first call's three ops become one x; the second call's rz is changed.
    const ops = [gate('x', [0]), ...c.ops.slice(3, 4), gate('rz', [0], [1]), ...c.ops.slice(5)];
    const changed = withOps(c, ops);
    const warnings: string[] = [];
    const text = qasmOutput(changed, 'qasm3', { inlineGates: false, warnings }).qasm!;
    expect(warnings).toEqual([expect.stringContaining('2 of 4 user gate calls')]);
    expect(text).toContain('x a[0];\nh b[0];\nrz(1) a[0];\ncx a[0], b[0];\nu1(-pi/6) b[0];\nfoo(pi/3) a[1], b[1];\nbar b[1], a[0];');
    expect(parseQasm(text).ops).toEqual(changed.ops);
  });

  it('never writes a call that is not its ops: definitions sent in JSON are checked by reading the text back', () => {
    const c = parseQasm(WITH_GATES, { keepGateDefinitions: true });
    const w = toWire(c);
    const lying = { ...w, gate_definitions: w.gate_definitions!.map((d) => (d.name === 'foo' ? { ...d, body: 'rz(2*a) q0; cx q0, q1; u1(a/2) q1;' } : d)) };
    const r = parseCircuitInput(lying, DEFAULT_CIRCUIT_LIMITS);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const warnings: string[] = [];
    const text = qasmOutput(r.circuit, 'qasm2', { inlineGates: false, warnings }).qasm!;
    expect(warnings).toEqual([expect.stringContaining('4 of 4')]);
    expect(text).not.toMatch(/^foo|^bar/m);
    expect(parseQasm(text).ops).toEqual(c.ops);
  });

  it('bounds the kept definitions (TOO_MANY_DEFINITIONS) and checks calls sent in JSON', () => {
    const src = Array.from({ length: 257 }, (_, i) => `gate g${i} a { x a; }`).join('\n') + '\nqreg q[1];';
    expect(() => parseQasm(src)).not.toThrow();
    try {
      parseQasm(src, { keepGateDefinitions: true });
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).details).toEqual([expect.objectContaining({ code: 'TOO_MANY_DEFINITIONS' })]);
    }
    const w = toWire(parseQasm(WITH_GATES, { keepGateDefinitions: true }));
    const bad = {
      ...w,
      gate_calls: [
        { ...w.gate_calls![0]!, gate: 'nope' },
        { ...w.gate_calls![1]!, qubits: [0, 9] },
      ],
    };
    const r = parseCircuitInput(bad, DEFAULT_CIRCUIT_LIMITS);
    if (r.ok) throw new Error('invalid gate calls were accepted');
    expect(r.errors.map((p) => [p.path, p.code])).toEqual([
      ['/gate_calls/0/gate', 'GATE_CALL_INVALID'],
      ['/gate_calls/1/qubits', 'GATE_CALL_INVALID'],
    ]);
  });
});
