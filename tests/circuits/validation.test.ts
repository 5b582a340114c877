import { describe, expect, it } from 'vitest';
import { CIRCUIT_PROBLEM_CODES } from '../../src/circuits/error-codes.js';
import { GATES, NON_GATE_OPS } from '../../src/circuits/gates.js';
import { gate, measure, reset, type Operation } from '../../src/circuits/ir.js';
import { DEPRECATION_WARNING_V01, parseCircuitInput, requireCircuit, toWire, type CircuitLimits } from '../../src/circuits/wire-format.js';
import { AppError } from '../../src/errors/app-error.js';

const LIMITS: CircuitLimits = { maxQubits: 8, maxGates: 20, maxDepth: 10 };
const v02 = (extra: Record<string, unknown>) => ({ schema: '0.2', num_qubits: 2, num_clbits: 2, gates: [], ...extra });
const qasm2 = (body: string) => ({ format: 'qasm2', source: `OPENQASM 2.0;\ninclude "qelib1.inc";\n${body}` });

/** One input per problem code, with the path where the problem must be reported. */
const CASES: ReadonlyArray<{ code: string; input: unknown; path: string }> = [
  { code: 'REQUIRED', input: { schema: '0.2', num_qubits: 2 }, path: '/gates' },
  { code: 'WRONG_TYPE', input: v02({ gates: [{ op: 'h', qubits: ['0'] }] }), path: '/gates/0/qubits/0' },
  { code: 'UNKNOWN_PROPERTY', input: v02({ gates: [{ op: 'h', qubits: [0], param: [1] }] }), path: '/gates/0/param' },
  { code: 'TOO_SMALL', input: v02({ num_qubits: 0 }), path: '/num_qubits' },
  { code: 'UNKNOWN_SCHEMA_VERSION', input: v02({ schema: '0.3' }), path: '/schema' },
  { code: 'UNKNOWN_FORMAT', input: { format: 'quil', source: 'H 0' }, path: '/format' },
  { code: 'UNKNOWN_GATE', input: v02({ gates: [{ op: 'hadamard', qubits: [0] }] }), path: '/gates/0/op' },
  { code: 'WRONG_ARITY', input: v02({ gates: [{ op: 'cx', qubits: [0] }] }), path: '/gates/0/qubits' },
  { code: 'WRONG_PARAM_COUNT', input: v02({ gates: [{ op: 'rz', qubits: [0] }] }), path: '/gates/0/params' },
  // JSON cannot spell Infinity, but 1e999 parses to it; so does the expression "1/0".
  { code: 'NON_FINITE_PARAM', input: v02({ gates: [{ op: 'rz', qubits: [0], params: ['1/0'] }] }), path: '/gates/0/params/0' },
  { code: 'QUBIT_OUT_OF_RANGE', input: v02({ gates: [{ op: 'cx', qubits: [0, 2] }] }), path: '/gates/0/qubits/1' },
  { code: 'CLBIT_OUT_OF_RANGE', input: v02({ measurements: [{ qubit: 0, clbit: 2 }] }), path: '/measurements/0/clbit' },
  { code: 'DUPLICATE_QUBIT', input: v02({ gates: [{ op: 'cx', qubits: [1, 1] }] }), path: '/gates/0/qubits/1' },
  { code: 'TOO_MANY_QUBITS', input: v02({ num_qubits: 9 }), path: '/num_qubits' },
  { code: 'TOO_MANY_GATES', input: v02({ gates: Array.from({ length: 21 }, (_, i) => ({ op: 'x', qubits: [i % 2] })) }), path: '/gates' },
  { code: 'TOO_DEEP', input: v02({ gates: Array.from({ length: 11 }, () => ({ op: 'x', qubits: [0] })) }), path: '/gates' },
  { code: 'QASM_SYNTAX_ERROR', input: qasm2('qreg q[2];\nh q[0]\ncx q[0], q[1];'), path: '/source' },
  { code: 'QASM_UNSUPPORTED', input: qasm2('qreg q[1];\ncreg c[1];\nwhile (c == 1) x q[0];'), path: '/source' },
  { code: 'QASM_UNDEFINED', input: qasm2('qreg q[1];\nh r[0];'), path: '/source' },
  { code: 'EXPRESSION_TOO_DEEP', input: v02({ gates: [{ op: 'rz', qubits: [0], params: [`${'('.repeat(40)}pi${')'.repeat(40)}`] }] }), path: '/gates/0/params/0' },
  { code: 'EXPRESSION_TOO_LONG', input: qasm2(`qreg q[1];\nrz(${Array(600).fill('pi').join('+')}) q[0];`), path: '/source' },
  { code: 'TOO_DEEPLY_NESTED', input: v02({ metadata: { a: [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]] } }), path: '/metadata/a/0/0/0/0/0/0/0/0/0/0/0/0/0/0' },
  { code: 'METADATA_TOO_LARGE', input: v02({ metadata: { note: 'x'.repeat(70_000) } }), path: '/metadata' },
  { code: 'INVALID_CHARACTER', input: v02({ metadata: { name: 'a\u0000b' } }), path: '/metadata/name' },
  { code: 'TOO_MANY_PROBLEMS', input: v02({ gates: [{ op: 'barrier', qubits: Array.from({ length: 200 }, () => 0) }] }), path: '' },
  // Symbolic parameters: a consumer that needs numbers refuses a circuit that still has them.
  { code: 'PARAMETERS_UNBOUND', input: v02({ parameters: ['t'], gates: [{ op: 'rz', qubits: [0], params: ['t'] }] }), path: '/parameters' },
  { code: 'PARAMETER_UNKNOWN', input: v02({ parameters: ['t'], gates: [{ op: 'rz', qubits: [0], params: ['t+u'] }] }), path: '/gates/0/params/0' },
  { code: 'DUPLICATE_PARAMETER', input: v02({ parameters: ['t', 't'] }), path: '/parameters/1' },
  { code: 'TOO_MANY_PARAMETERS', input: v02({ parameters: Array.from({ length: 65 }, (_, i) => `p${i}`) }), path: '/parameters' },
  { code: 'REGISTERS_MISMATCH', input: v02({ registers: [{ name: 'a', size: 1 }] }), path: '/registers' },
  // Kept user gate definitions (OpenQASM export with inline_gates: false).
  { code: 'TOO_MANY_DEFINITIONS', input: v02({ gate_definitions: Array.from({ length: 257 }, (_, i) => ({ name: `g${i}`, qubits: ['a'], body: 'x a;' })) }), path: '/gate_definitions' },
  {
    code: 'GATE_CALL_INVALID',
    input: v02({ gate_definitions: [{ name: 'g', qubits: ['a'], body: 'x a;' }], gate_calls: [{ gate: 'g', qubits: [0], start: 0, count: 1 }] }),
    path: '/gate_calls/0/start',
  },
  // Dynamic circuits: a gate's condition on measured bits.
  { code: 'CONDITION_INVALID', input: v02({ gates: [{ op: 'x', qubits: [0], condition: { clbits: [0], value: 2 } }] }), path: '/gates/0/condition/value' },
];

describe('circuit validation codes', () => {
  it('has a case for every problem code', () => {
    expect(new Set(CASES.map((c) => c.code))).toEqual(new Set(CIRCUIT_PROBLEM_CODES));
  });

  for (const c of CASES) {
    it(`reports ${c.code} at ${c.path}`, () => {
      const r = parseCircuitInput(c.input, LIMITS);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.errors).toContainEqual(expect.objectContaining({ code: c.code, path: c.path }));
      for (const e of r.errors) expect(e.message.length).toBeGreaterThan(0);
    });
  }

  it('NON_FINITE_PARAM also for a JSON number that overflows', () => {
    const r = parseCircuitInput(JSON.parse('{"schema":"0.2","num_qubits":1,"gates":[{"op":"rx","qubits":[0],"params":[1e999]}]}'));
    expect(r.ok ? [] : r.errors).toEqual([expect.objectContaining({ code: 'NON_FINITE_PARAM', path: '/gates/0/params/0' })]);
  });

  it('huge declared sizes are reported as over the limit, never allocated by', () => {
    // Depth used to allocate arrays of num_qubits / num_clbits entries before the limits were applied.
    const r = parseCircuitInput(v02({ num_qubits: 200_000_000, num_clbits: 200_000_000, gates: [{ op: 'h', qubits: [0] }] }), LIMITS);
    expect(r.ok ? [] : r.errors.map((e) => `${e.code}@${e.path}`).sort()).toEqual(['TOO_MANY_QUBITS@/num_clbits', 'TOO_MANY_QUBITS@/num_qubits']);
  });

  it('allows 4 clbits per allowed qubit in JSON, as the OpenQASM importer does', () => {
    expect(parseCircuitInput(v02({ num_clbits: 4 * LIMITS.maxQubits }), LIMITS).ok).toBe(true);
    const over = parseCircuitInput(v02({ num_clbits: 4 * LIMITS.maxQubits + 1 }), LIMITS);
    expect(over.ok ? [] : over.errors).toEqual([expect.objectContaining({ code: 'TOO_MANY_QUBITS', path: '/num_clbits' })]);
    const q = parseCircuitInput({ format: 'qasm2', source: `qreg q[1];\ncreg c[${4 * LIMITS.maxQubits + 1}];` }, LIMITS);
    expect(q.ok ? [] : q.errors).toEqual([expect.objectContaining({ code: 'TOO_MANY_QUBITS', path: '/source' })]);
  });

  it('QASM problems carry line and column', () => {
    const r = parseCircuitInput(qasm2('qreg q[2];\n  cx q[0], q[5];'));
    expect(r.ok ? [] : r.errors).toEqual([{ path: '/source', code: 'QUBIT_OUT_OF_RANGE', message: expect.stringContaining('out of range'), line: 4, column: 12 }]);
  });

  it('reports every problem, not only the first', () => {
    const r = parseCircuitInput(
      v02({
        gates: [
          { op: 'h', qubits: [0] },
          { op: 'foo', qubits: [0] },
          { op: 'cx', qubits: [0, 0] },
          { op: 'rz', qubits: [3], params: [] },
        ],
        measurements: [{ qubit: 0, clbit: 7 }],
      }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = r.errors.map((e) => `${e.code}@${e.path}`).sort();
    expect(got).toEqual(
      ['UNKNOWN_GATE@/gates/1/op', 'DUPLICATE_QUBIT@/gates/2/qubits/1', 'QUBIT_OUT_OF_RANGE@/gates/3/qubits/0', 'WRONG_PARAM_COUNT@/gates/3/params', 'CLBIT_OUT_OF_RANGE@/measurements/0/clbit'].sort(),
    );
  });

  it('accepts params as pi expressions', () => {
    const r = parseCircuitInput(v02({ gates: [{ op: 'rz', qubits: [0], params: ['-3*pi/4'] }] }));
    expect(r.ok && r.circuit.ops[0]).toEqual(gate('rz', [0], [(-3 * Math.PI) / 4]));
  });

  it('upgrades legacy 0.1 with a deprecation warning', () => {
    const r = parseCircuitInput({
      version: '0.1',
      qubits: 2,
      operations: [
        { gate: 'h', targets: [0] },
        { gate: 'cx', controls: [0], targets: [1] },
        { gate: 'measure', targets: [1] },
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual([DEPRECATION_WARNING_V01]);
    expect(r.format).toBe('json-0.1');
    expect(toWire(r.circuit)).toEqual({
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      gates: [
        { op: 'h', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
      ],
      measurements: [{ qubit: 1, clbit: 1 }],
      metadata: {},
    });
  });

  it('reports 0.1 problems at 0.1 paths', () => {
    const r = parseCircuitInput({ version: '0.1', qubits: 2, operations: [{ gate: 'cx', controls: [0], targets: [4] }] });
    expect(r.ok ? [] : r.errors).toEqual([expect.objectContaining({ code: 'QUBIT_OUT_OF_RANGE', path: '/operations/0/targets/0' })]);
  });

  it('normalizes: trailing measures become measurements, mid-circuit ones stay gates with clbits', () => {
    const r = parseCircuitInput(
      v02({
        gates: [
          { op: 'h', qubits: [0] },
          { op: 'measure', qubits: [0], clbits: [1] },
          { op: 'reset', qubits: [0] },
          { op: 'barrier', qubits: [0, 1] },
          { op: 'measure', qubits: [1], clbits: [0] },
        ],
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.circuit.ops[4]).toEqual(measure(1, 0));
    const w = toWire(r.circuit);
    expect(w.gates).toHaveLength(4);
    expect(w.gates[1]).toEqual({ op: 'measure', qubits: [0], clbits: [1] });
    expect(w.measurements).toEqual([{ qubit: 1, clbit: 0 }]);
    const again = parseCircuitInput(w);
    expect(again.ok && again.circuit).toEqual(r.circuit);
  });

  it('parses into an immutable IR: circuit, ops, index lists and metadata are frozen', () => {
    const r = parseCircuitInput(
      v02({
        gates: [
          { op: 'rz', qubits: [1], params: [0.5] },
          { op: 'reset', qubits: [0] },
          { op: 'barrier', qubits: [0, 1] },
        ],
        measurements: [{ qubit: 0, clbit: 0 }],
        metadata: { name: 'x' },
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const c = r.circuit;
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.ops)).toBe(true);
    expect(Object.isFrozen(c.metadata)).toBe(true);
    for (const op of c.ops) {
      expect(Object.isFrozen(op)).toBe(true);
      if (op.kind === 'gate') {
        expect(Object.isFrozen(op.qubits)).toBe(true);
        expect(Object.isFrozen(op.params)).toBe(true);
      }
      if (op.kind === 'barrier') expect(Object.isFrozen(op.qubits)).toBe(true);
    }
    expect(() => (c.ops as Operation[]).push(reset(1))).toThrow(TypeError);
  });

  it('requireCircuit throws CIRCUIT_INVALID with prefixed paths', () => {
    try {
      requireCircuit(v02({ gates: [{ op: 'cx', qubits: [0, 5] }] }), LIMITS);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      const err = e as AppError;
      expect(err.code).toBe('CIRCUIT_INVALID');
      expect(err.statusCode).toBe(400);
      expect(err.details).toEqual([expect.objectContaining({ path: '/circuit/gates/0/qubits/1', code: 'QUBIT_OUT_OF_RANGE' })]);
    }
    expect(requireCircuit(v02({ gates: [{ op: 'h', qubits: [0] }] }), LIMITS).circuit.ops).toHaveLength(1);
  });
});

describe('gate catalogue', () => {
  // Written out independently of src/circuits/gates.ts: DESIGN §5 asks for the qelib1.inc gates
  // (original list and the extended one Qiskit ships) plus sx, sxdg, ccz, rxx, ryy, rzz, p, u.
  const EXPECTED: Record<string, [arity: number, params: number]> = {
    // qelib1.inc, original
    u3: [1, 3],
    u2: [1, 2],
    u1: [1, 1],
    cx: [2, 0],
    id: [1, 0],
    u0: [1, 1],
    x: [1, 0],
    y: [1, 0],
    z: [1, 0],
    h: [1, 0],
    s: [1, 0],
    sdg: [1, 0],
    t: [1, 0],
    tdg: [1, 0],
    rx: [1, 1],
    ry: [1, 1],
    rz: [1, 1],
    cz: [2, 0],
    cy: [2, 0],
    ch: [2, 0],
    ccx: [3, 0],
    crz: [2, 1],
    cu1: [2, 1],
    cu3: [2, 3],
    // qelib1.inc, extended
    p: [1, 1],
    u: [1, 3],
    sx: [1, 0],
    sxdg: [1, 0],
    swap: [2, 0],
    cswap: [3, 0],
    crx: [2, 1],
    cry: [2, 1],
    cp: [2, 1],
    csx: [2, 0],
    cu: [2, 4],
    rxx: [2, 1],
    rzz: [2, 1],
    rccx: [3, 0],
    rc3x: [4, 0],
    c3x: [4, 0],
    c3sqrtx: [4, 0],
    c4x: [5, 0],
    // DESIGN §5 additions outside qelib1.inc
    ccz: [3, 0],
    ryy: [2, 1],
  };

  it('has every gate of DESIGN §5 with its arity and parameter count, and nothing else', () => {
    const got = Object.fromEntries([...GATES.values()].map((g) => [g.name, [g.arity, g.params]]));
    expect(got).toEqual(EXPECTED);
    expect([...NON_GATE_OPS].sort()).toEqual(['barrier', 'measure', 'reset']);
  });

  it('validates measure, reset and barrier arities', () => {
    const r = parseCircuitInput(
      v02({
        gates: [
          { op: 'measure', qubits: [0, 1], clbits: [0] },
          { op: 'reset', qubits: [0, 1] },
          { op: 'barrier', qubits: [] },
          { op: 'measure', qubits: [0], clbits: [0, 1] },
          { op: 'reset', qubits: [0], params: [1] },
        ],
      }),
    );
    expect(r.ok ? [] : r.errors.map((e) => `${e.code}@${e.path}`).sort()).toEqual(
      ['WRONG_ARITY@/gates/0/qubits', 'WRONG_ARITY@/gates/1/qubits', 'WRONG_ARITY@/gates/2/qubits', 'WRONG_ARITY@/gates/3/clbits', 'WRONG_PARAM_COUNT@/gates/4/params'].sort(),
    );
  });
});
