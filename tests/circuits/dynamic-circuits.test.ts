import { describe, expect, it } from 'vitest';
import { circuit, conditioned, gate, measure, type Circuit } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { toQasm2, toQasm3 } from '../../src/circuits/qasm/export-qasm.js';
import { parseCircuitInput, toWire, type CircuitLimits } from '../../src/circuits/wire-format.js';
import { circuitDepth } from '../../src/circuits/depth.js';
import { analyzeCircuit } from '../../src/circuits/analysis/analyze.js';
import { AppError } from '../../src/errors/app-error.js';
import { planMeasured } from '../../src/coupling/scope.js';

const Q3 = (body: string) => `OPENQASM 3.0;\ninclude "stdgates.inc";\n${body}`;
const Q2 = (body: string) => `OPENQASM 2.0;\ninclude "qelib1.inc";\n${body}`;

/** The QASM problem of a refused program: code, line, column. */
function refusal(source: string, opts: Parameters<typeof parseQasm>[1] = {}): { code: string; line: number; column: number; message: string } {
  try {
    parseQasm(source, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const d = (e as AppError).details as { code: string; line: number; column: number; message: string }[];
    return d[0]!;
  }
  throw new Error('the program was accepted');
}

describe('OpenQASM if', () => {
  it('a QASM 2 if(c==k) conditions the gate on the whole register', () => {
    const c = parseQasm(Q2('qreg q[2];\ncreg c[2];\nmeasure q[0] -> c[0];\nif(c==1) x q[1];'));
    expect(c.ops).toEqual([measure(0, 0), conditioned(gate('x', [1]), { clbits: [0, 1], value: 1 })]);
  });

  it('QASM 3 forms: c == k, c[i], !c[i], c[i] == 1, c[i] != 1, blocks, nested ifs, else on one bit', () => {
    const c = parseQasm(
      Q3(`qubit[3] q;
bit[2] c;
bit[1] d;
c[0] = measure q[0];
if (c == 2) x q[1];
if (c[1]) { h q[2]; cx q[1], q[2]; }
if (!c[0]) z q[1];
if (c[0] == 1) y q[1];
if (c[0] != 1) s q[1];
if (d == true) t q[0];
if (c[0]) { if (!c[1]) rz(pi/2) q[2]; } else { x q[2]; }
`),
    );
    const gates = c.ops.slice(1);
    expect(gates).toEqual([
      conditioned(gate('x', [1]), { clbits: [0, 1], value: 2 }),
      conditioned(gate('h', [2]), { clbits: [1], value: 1 }),
      conditioned(gate('cx', [1, 2]), { clbits: [1], value: 1 }),
      conditioned(gate('z', [1]), { clbits: [0], value: 0 }),
      conditioned(gate('y', [1]), { clbits: [0], value: 1 }),
      conditioned(gate('s', [1]), { clbits: [0], value: 0 }),
      conditioned(gate('t', [0]), { clbits: [2], value: 1 }),
      // the conjunction c[0] && !c[1]: bit 0 set, bit 1 clear
      conditioned(gate('rz', [2], [Math.PI / 2]), { clbits: [0, 1], value: 1 }),
      conditioned(gate('x', [2]), { clbits: [0], value: 0 }),
    ]);
  });

  it('a user gate inside if: every gate it expands to is conditioned', () => {
    const c = parseQasm(Q3('gate bell a, b { h a; cx a, b; }\nqubit[3] q;\nbit[1] c;\nc[0] = measure q[0];\nif (c[0]) bell q[1], q[2];'));
    expect(c.ops.slice(1)).toEqual([conditioned(gate('h', [1]), { clbits: [0], value: 1 }), conditioned(gate('cx', [1, 2]), { clbits: [0], value: 1 })]);
  });

  it('tests of one bit that disagree: the gate never runs and is dropped', () => {
    const c = parseQasm(Q3('qubit[1] q;\nbit[1] c;\nif (c[0]) { if (!c[0]) x q[0]; h q[0]; }'));
    expect(c.ops).toEqual([conditioned(gate('h', [0]), { clbits: [0], value: 1 })]);
  });

  it.each([
    ['else on a multi-bit register', 'qubit[1] q;\nbit[2] c;\nif (c == 1) x q[0]; else z q[0];', 'QASM_UNSUPPORTED', 3],
    ['measure inside if', 'qubit[1] q;\nbit[2] c;\nif (c[0]) c[1] = measure q[0];', 'QASM_UNSUPPORTED', 3],
    ['reset inside if', 'qubit[1] q;\nbit[1] c;\nif (c[0]) { reset q[0]; }', 'QASM_UNSUPPORTED', 3],
    ['barrier inside if', 'qubit[1] q;\nbit[1] c;\nif (c[0]) barrier q;', 'QASM_UNSUPPORTED', 3],
    ['a register tested without a comparison', 'qubit[1] q;\nbit[2] c;\nif (c) x q[0];', 'QASM_UNSUPPORTED', 3],
    ['a value that does not fit', 'qubit[1] q;\nbit[2] c;\nif (c == 4) x q[0];', 'CONDITION_INVALID', 3],
    ['a quantum register in the condition', 'qubit[1] q;\nbit[2] c;\nif (q == 1) x q[0];', 'QASM_UNDEFINED', 3],
    ['a bit out of range', 'qubit[1] q;\nbit[2] c;\nif (c[2]) x q[0];', 'CLBIT_OUT_OF_RANGE', 3],
    ['a declaration inside if', 'qubit[1] q;\nbit[1] c;\nif (c[0]) { qubit r; }', 'QASM_UNSUPPORTED', 3],
    ['else without if', 'qubit[1] q;\nelse x q[0];', 'QASM_SYNTAX_ERROR', 2],
    // Any width is read (issue 34 item 10b); a value past it, exactly 2^33 here, still cannot fit.
    ['a wide value that does not fit', 'qubit[10] q;\nbit[33] c;\nif (c == 8589934592) x q[0];', 'CONDITION_INVALID', 3],
  ])('refuses %s with a located error', (_what, body, code, line) => {
    const p = refusal(Q3(body));
    expect(p.code).toBe(code);
    expect(p.line).toBe(line + 2);
    expect(p.column).toBeGreaterThan(0);
  });

  it('QASM 2: the if body is one gate; the register compared whole', () => {
    const c = parseQasm(Q2('qreg q[1];\ncreg a[1];\ncreg b[2];\nmeasure q[0] -> b[1];\nif(b==2) h q[0];'));
    expect(c.ops[1]).toEqual(conditioned(gate('h', [0]), { clbits: [1, 2], value: 2 }));
  });
});

describe('OpenQASM for', () => {
  it('unrolls ranges (inclusive), stepped ranges, sets and nested loops; the variable indexes and scales angles', () => {
    const c = parseQasm(
      Q3(`qubit[4] q;
for int i in [0:2] { cx q[i], q[i+1]; }
for uint[8] i in [3:-2:0] rz(i*pi/4) q[i];
for i in {1, 3} h q[i];
for int i in [0:1] { for int j in [i+1:2] cz q[i], q[j]; }
`),
    );
    expect(c.ops).toEqual([
      gate('cx', [0, 1]),
      gate('cx', [1, 2]),
      gate('cx', [2, 3]),
      gate('rz', [3], [(3 * Math.PI) / 4]),
      gate('rz', [1], [Math.PI / 4]),
      gate('h', [1]),
      gate('h', [3]),
      gate('cz', [0, 1]),
      gate('cz', [0, 2]),
      gate('cz', [1, 2]),
    ]);
  });

  it('a loop with measurements and ifs inside: per-iteration conditions', () => {
    const c = parseQasm(Q3('qubit[3] q;\nbit[3] c;\nfor int i in [0:1] {\n  c[i] = measure q[i];\n  if (c[i]) x q[i+1];\n}'));
    expect(c.ops).toEqual([measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 }), measure(1, 1), conditioned(gate('x', [2]), { clbits: [1], value: 1 })]);
  });

  it('an empty range runs the body zero times', () => {
    const c = parseQasm(Q3('qubit[1] q;\nfor int i in [3:1] x q[i];\nh q[0];'));
    expect(c.ops).toEqual([gate('h', [0])]);
  });

  // Refused before any iteration: iterating would outlast the test's timeout (the bound, not a timing, is what is checked).
  it('a loop of 10^9 iterations is refused before any iteration', () => {
    const p = refusal(Q3('qubit[1] q;\nfor int i in [0:999999999] { }'), { maxOps: 1000 });
    expect(p.code).toBe('TOO_MANY_GATES');
    expect(p.line).toBe(4);
    // nested: each count is small, the product is not
    const n = refusal(Q3('qubit[1] q;\nfor int i in [1:1000] {\n for int j in [1:1000] { for int k in [1:1000] x q[0]; }\n}'), { maxOps: 100_000 });
    expect(n.code).toBe('TOO_MANY_GATES');
    expect(n.line).toBe(5);
  });

  it('if and for nest at most 32 levels: deeper programs are refused, not a stack overflow', () => {
    const deepIf = refusal(Q3('qubit[2] q;\nbit[1] c;\nc[0] = measure q[0];\n' + 'if (c[0]) {'.repeat(20_000) + 'x q[1];' + '}'.repeat(20_000)));
    expect(deepIf.code).toBe('TOO_DEEPLY_NESTED');
    const chained = refusal(Q3('qubit[2] q;\nbit[1] c;\nfor int i in [0:1] ' + 'if (c[0]) '.repeat(20_000) + 'x q[1];'));
    expect(chained.code).toBe('TOO_DEEPLY_NESTED');
    const loops = Array.from({ length: 5_000 }, (_, k) => `for int i${k} in [0:0] {`).join('');
    expect(refusal(Q3('qubit[2] q;\n' + loops + 'x q[1];' + '}'.repeat(5_000))).code).toBe('TOO_DEEPLY_NESTED');
    const ok = parseQasm(Q3('qubit[2] q;\nbit[1] c;\nc[0] = measure q[0];\n' + 'if (c[0]) {'.repeat(32) + 'x q[1];' + '}'.repeat(32)));
    expect(ok.ops).toEqual([measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
  });

  it('refuses an index out of range, a zero step, shadowing and a non-integer bound', () => {
    expect(refusal(Q3('qubit[2] q;\nfor int i in [0:2] x q[i];')).code).toBe('QUBIT_OUT_OF_RANGE');
    expect(refusal(Q3('qubit[2] q;\nfor int i in [0:0:2] x q[i];')).code).toBe('QASM_SYNTAX_ERROR');
    expect(refusal(Q3('qubit[2] q;\nfor int i in [0:1] { for int i in [0:1] x q[i]; }')).code).toBe('QASM_SYNTAX_ERROR');
    expect(refusal(Q3('qubit[2] q;\nfor int i in [0:1.5] x q[0];')).code).toBe('QASM_SYNTAX_ERROR');
    expect(refusal(Q3('qubit[2] q;\nfor int q in [0:1] x q[0];')).code).toBe('QASM_SYNTAX_ERROR');
  });
});

const LIMITS: CircuitLimits = { maxQubits: 8, maxGates: 100, maxDepth: 100 };
const v02 = (gates: unknown[], extra: Record<string, unknown> = {}) => ({ schema: '0.2', num_qubits: 2, num_clbits: 2, gates, ...extra });

describe('wire format condition', () => {
  it('parses {clbits, value} into a conditioned gate and emits it back (round trip)', () => {
    const input = v02([
      { op: 'h', qubits: [0] },
      { op: 'measure', qubits: [0], clbits: [1] },
      { op: 'rx', qubits: [1], params: [0.5], condition: { clbits: [1], value: 1 } },
      { op: 'cx', qubits: [0, 1], condition: { clbits: [0, 1], value: 2 } },
    ]);
    const r = parseCircuitInput(input, LIMITS);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.circuit.ops[2]).toEqual(conditioned(gate('rx', [1], [0.5]), { clbits: [1], value: 1 }));
    const wire = toWire(r.circuit);
    expect(wire.gates[2]).toEqual({ op: 'rx', qubits: [1], params: [0.5], condition: { clbits: [1], value: 1 } });
    const again = parseCircuitInput(wire, LIMITS);
    expect(again.ok && again.circuit).toEqual(r.circuit);
  });

  it('a condition on a bit nothing measured is allowed (it reads 0)', () => {
    expect(parseCircuitInput(v02([{ op: 'x', qubits: [0], condition: { clbits: [0], value: 0 } }]), LIMITS).ok).toBe(true);
  });

  it.each([
    ['a value too large for its bits', { clbits: [0], value: 2 }, '/gates/0/condition/value', 'CONDITION_INVALID'],
    ['a negative value', { clbits: [0], value: -1 }, '/gates/0/condition/value', 'CONDITION_INVALID'],
    ['a fractional value', { clbits: [0], value: 0.5 }, '/gates/0/condition/value', 'CONDITION_INVALID'],
    ['no value', { clbits: [0] }, '/gates/0/condition/value', 'REQUIRED'],
    ['no clbits', { clbits: [], value: 0 }, '/gates/0/condition/clbits', 'CONDITION_INVALID'],
    ['a clbit out of range', { clbits: [2], value: 1 }, '/gates/0/condition/clbits/0', 'CLBIT_OUT_OF_RANGE'],
    ['a repeated clbit', { clbits: [1, 1], value: 1 }, '/gates/0/condition/clbits/1', 'CONDITION_INVALID'],
    ['an unknown property', { clbits: [1], value: 1, register: 'c' }, '/gates/0/condition/register', 'UNKNOWN_PROPERTY'],
    ['not an object', 3, '/gates/0/condition', 'CONDITION_INVALID'],
  ])('refuses %s at its JSON path', (_what, condition, path, code) => {
    const r = parseCircuitInput(v02([{ op: 'x', qubits: [0], condition }]), LIMITS);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toContainEqual(expect.objectContaining({ path, code }));
  });

  it('refuses a condition on measure, reset and barrier, and on a 0.1 circuit', () => {
    for (const op of [
      { op: 'measure', qubits: [0], clbits: [0], condition: { clbits: [1], value: 1 } },
      { op: 'reset', qubits: [0], condition: { clbits: [1], value: 1 } },
      { op: 'barrier', qubits: [0], condition: { clbits: [1], value: 1 } },
    ]) {
      const r = parseCircuitInput(v02([op]), LIMITS);
      expect(r.ok || r.errors).toContainEqual(expect.objectContaining({ path: '/gates/0/condition', code: 'CONDITION_INVALID' }));
    }
    const legacy = parseCircuitInput({ version: '0.1', qubits: 1, operations: [{ gate: 'x', targets: [0], condition: { clbits: [0], value: 1 } }] }, LIMITS);
    expect(legacy.ok || legacy.errors).toContainEqual(expect.objectContaining({ path: '/operations/0/condition', code: 'UNKNOWN_PROPERTY' }));
  });

  it('a 32-bit condition takes values up to 2^32 - 1', () => {
    const clbits = Array.from({ length: 32 }, (_, i) => i);
    const ok = parseCircuitInput({ schema: '0.2', num_qubits: 8, num_clbits: 32, gates: [{ op: 'x', qubits: [0], condition: { clbits, value: 2 ** 32 - 1 } }] }, LIMITS);
    expect(ok.ok).toBe(true);
    const tooMany = parseCircuitInput({ schema: '0.2', num_qubits: 8, num_clbits: 32, gates: [{ op: 'x', qubits: [0], condition: { clbits: [...clbits, 32], value: 1 } }] }, LIMITS);
    expect(tooMany.ok).toBe(false);
  });
});

describe('OpenQASM export of conditioned gates', () => {
  const regs = (c: Circuit) => c;
  it('whole registers as if (c == k), single bits as if (c[i]) / if (!c[i]), others nested; reads back the same ops', () => {
    const c = regs(
      circuit(
        3,
        3,
        [
          measure(0, 0),
          measure(1, 2),
          conditioned(gate('x', [1]), { clbits: [0, 1], value: 3 }),
          conditioned(gate('h', [2]), { clbits: [2], value: 1 }),
          conditioned(gate('rz', [2], [Math.PI / 3]), { clbits: [0], value: 0 }),
          conditioned(gate('cx', [0, 2]), { clbits: [0, 2], value: 1 }),
        ],
        {},
        {
          registers: [
            { name: 'a', size: 2 },
            { name: 'b', size: 1 },
          ],
        },
      ),
    );
    const text = toQasm3(c);
    expect(text).toContain('if (a == 3) x q[1];');
    expect(text).toContain('if (b == 1) h q[2];');
    expect(text).toContain('if (!a[0]) rz(pi/3) q[2];');
    expect(text).toContain('if (a[0]) if (!b[0]) cx q[0], q[2];');
    expect(parseQasm(text).ops).toEqual(c.ops);
  });

  it('QASM 2 writes whole-register conditions and refuses others with CONDITION_INVALID', () => {
    const whole = circuit(2, 2, [measure(0, 0), conditioned(gate('x', [1]), { clbits: [0, 1], value: 1 })]);
    const text = toQasm2(whole);
    expect(text).toContain('if(c==1) x q[1];');
    expect(parseQasm(text).ops).toEqual(whole.ops);
    const bit = circuit(2, 2, [measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
    try {
      toQasm2(bit);
      throw new Error('exported');
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).details).toContainEqual(expect.objectContaining({ path: '/gates/1/condition', code: 'CONDITION_INVALID' }));
    }
  });
});

describe('analysis of conditioned gates', () => {
  it('counts them as gates, reports dynamic, and depth waits for the measurement of the bits read', () => {
    const c = circuit(2, 1, [gate('h', [0]), measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
    // x on qubit 1 alone would be depth 1; after the measurement of clbit 0 it is depth 3
    expect(circuitDepth(c)).toBe(3);
    const a = analyzeCircuit(c);
    expect(a.gate_count).toBe(2);
    expect(a.conditioned_gate_count).toBe(1);
    expect(a.dynamic).toBe(true);
    expect(a.counts_by_kind).toEqual({ h: 1, measure: 1, x: 1 });
    expect(analyzeCircuit(circuit(1, 0, [gate('h', [0])])).dynamic).toBe(false);
  });
});

describe('coupling and dynamic circuits', () => {
  it('the measured mode falls back with DYNAMIC_CIRCUIT: a dynamic circuit has no single final pure state', () => {
    const c = circuit(2, 1, [gate('h', [0]), measure(0, 0), conditioned(gate('x', [1]), { clbits: [0], value: 1 })]);
    expect(planMeasured(c, 20)).toMatchObject({ ok: false, reason_code: 'DYNAMIC_CIRCUIT' });
  });
});
