import { describe, expect, it } from 'vitest';
import { GATES } from '../../src/circuits/gates.js';
import { barrier, gate, measure, reset } from '../../src/circuits/ir.js';
import { parseQasm, type QasmParseOptions } from '../../src/circuits/qasm/parse-qasm.js';
import { AppError } from '../../src/errors/app-error.js';

function parseError(source: string, options: QasmParseOptions = {}): { code: string; line: number; column: number; message: string } {
  try {
    parseQasm(source, options);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.code).toBe('QASM_PARSE_ERROR');
    expect(err.statusCode).toBe(400);
    const d = (err.details as { code: string; line: number; column: number; message: string }[])[0]!;
    expect(err.message).toContain(`line ${d.line}, column ${d.column}`);
    return d;
  }
  throw new Error('expected a parse error');
}

describe('OpenQASM 2 import', () => {
  it('reads several registers in declaration order, comments, indentation and pi expressions', () => {
    const c = parseQasm(`// a comment
OPENQASM 2.0;
include "qelib1.inc";
qreg a[2];   /* block
   comment */
qreg b[1];
creg ca[1];
creg cb[2];
    h a[1];
\tcx a[1], b[0];
u3(pi/2, -pi, 2*pi/3) b[0];
rz(-(pi^2)/4 + sin(pi/2)) a[0];
measure b[0] -> cb[1];
`);
    expect(c.numQubits).toBe(3);
    expect(c.numClbits).toBe(3);
    expect(c.ops).toEqual([gate('h', [1]), gate('cx', [1, 2]), gate('u3', [2], [Math.PI / 2, -Math.PI, (2 * Math.PI) / 3]), gate('rz', [0], [-(Math.PI ** 2) / 4 + 1]), measure(2, 2)]);
  });

  it('broadcasts registers', () => {
    const c = parseQasm('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\nqreg r[3];\ncreg c[3];\nh q;\ncx q[0], r;\ncx q, r;\nmeasure q -> c;\nreset r;\nbarrier q, r[1];');
    expect(c.ops).toEqual([
      gate('h', [0]),
      gate('h', [1]),
      gate('h', [2]),
      gate('cx', [0, 3]),
      gate('cx', [0, 4]),
      gate('cx', [0, 5]),
      gate('cx', [0, 3]),
      gate('cx', [1, 4]),
      gate('cx', [2, 5]),
      measure(0, 0),
      measure(1, 1),
      measure(2, 2),
      reset(3),
      reset(4),
      reset(5),
      barrier([0, 1, 2, 4]),
    ]);
  });

  it('knows every gate of qelib1.inc, original and extended lists, plus U and CX', () => {
    for (const g of GATES.values()) {
      if (!g.origin.startsWith('qelib1')) continue;
      const qs = Array.from({ length: g.arity }, (_, i) => `q[${i}]`).join(', ');
      const ps = g.params > 0 ? `(${Array(g.params).fill('0.5').join(', ')})` : '';
      const c = parseQasm(`OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[5];\n${g.name}${ps} ${qs};`);
      expect(c.ops).toEqual([gate(g.name, [...Array(g.arity).keys()], Array(g.params).fill(0.5))]);
    }
    // The OpenQASM 2 built-ins; U differs from the IR's u by a global phase only (see docs).
    expect(parseQasm('OPENQASM 2.0;\nqreg q[2];\nU(1,2,3) q[0];\nCX q[0],q[1];').ops).toEqual([gate('u', [0], [1, 2, 3]), gate('cx', [0, 1])]);
  });

  it('inlines user gate definitions, with parameters and nested calls', () => {
    const c = parseQasm(`OPENQASM 2.0;
include "qelib1.inc";
gate bell a, b { h a; cx a, b; }
gate twist(theta, phi) x, y { bell x, y; rz(theta/2) y; barrier x, y; u1(phi - theta) x; }
qreg q[3];
twist(pi, pi/2) q[2], q[0];`);
    expect(c.ops).toEqual([gate('h', [2]), gate('cx', [2, 0]), gate('rz', [0], [Math.PI / 2]), barrier([2, 0]), gate('u1', [2], [Math.PI / 2 - Math.PI])]);
  });

  it('takes a definition of a catalogue gate (as exporters write for ccz) as a declaration', () => {
    const c = parseQasm('OPENQASM 2.0;\ninclude "qelib1.inc";\ngate ccz a, b, c { h c; ccx a, b, c; h c; }\nqreg q[3];\nccz q[0], q[1], q[2];');
    expect(c.ops).toEqual([gate('ccz', [0, 1, 2])]);
  });
});

describe('OpenQASM 3 import', () => {
  it('reads qubit/bit declarations, stdgates, measurement assignment and drops gphase', () => {
    const c = parseQasm(`OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
qubit anc;
bit[2] c;
bit flag;
h q[0];
phase(pi/8) anc;
cphase(0.25) q[0], anc;
gphase(pi);
U(1, 2, 3) q[1];
c = measure q;
flag = measure anc;
c[1] = measure q[0];
measure q[1] -> c[0];`);
    expect(c.numQubits).toBe(3);
    expect(c.numClbits).toBe(3);
    expect(c.ops).toEqual([
      gate('h', [0]),
      gate('p', [2], [Math.PI / 8]),
      gate('cp', [0, 2], [0.25]),
      gate('u', [1], [1, 2, 3]),
      measure(0, 0),
      measure(1, 1),
      measure(2, 2),
      measure(0, 1),
      measure(1, 0),
    ]);
  });

  it('maps ctrl @ and inv @ onto catalogue gates', () => {
    const c = parseQasm(`OPENQASM 3;
include "stdgates.inc";
qubit[5] q;
ctrl @ x q[0], q[1];
ctrl @ ctrl @ z q[0], q[1], q[2];
ctrl(4) @ x q[0], q[1], q[2], q[3], q[4];
inv @ s q[0];
inv @ rx(0.5) q[1];
inv @ ctrl @ rz(0.25) q[0], q[1];
ctrl @ U(1, 2, 3) q[0], q[1];`);
    expect(c.ops).toEqual([
      gate('cx', [0, 1]),
      gate('ccz', [0, 1, 2]),
      gate('c4x', [0, 1, 2, 3, 4]),
      gate('sdg', [0]),
      gate('rx', [1], [-0.5]),
      gate('crz', [0, 1], [-0.25]),
      gate('cu', [0, 1], [1, 2, 3, 0]),
    ]);
  });

  it('accepts the Unicode and tau constants', () => {
    expect(parseQasm('OPENQASM 3;\nqubit q;\nrz(π/2) q;\nrz(τ) q;').ops).toEqual([gate('rz', [0], [Math.PI / 2]), gate('rz', [0], [2 * Math.PI])]);
  });
});

describe('OpenQASM errors carry line and column', () => {
  it.each([
    ['missing semicolon', 'OPENQASM 2.0;\nqreg q[1];\nh q[0]\nx q[0];', 'QASM_SYNTAX_ERROR', 4, 1],
    ['unknown gate', 'OPENQASM 2.0;\nqreg q[1];\n  foo q[0];', 'UNKNOWN_GATE', 3, 3],
    ['index out of range', 'OPENQASM 2.0;\nqreg q[2];\ncx q[0], q[2];', 'QUBIT_OUT_OF_RANGE', 3, 10],
    ['clbit out of range', 'OPENQASM 2.0;\nqreg q[1];\ncreg c[1];\nmeasure q[0] -> c[1];', 'CLBIT_OUT_OF_RANGE', 4, 17],
    ['wrong arity', 'OPENQASM 2.0;\nqreg q[2];\ncx q[0];', 'WRONG_ARITY', 3, 1],
    ['wrong parameter count', 'OPENQASM 2.0;\nqreg q[2];\nrz q[0];', 'WRONG_PARAM_COUNT', 3, 1],
    ['same qubit twice', 'OPENQASM 2.0;\nqreg q[2];\ncx q[1], q[1];', 'DUPLICATE_QUBIT', 3, 1],
    ['unknown register', 'OPENQASM 2.0;\nqreg q[2];\nh r[0];', 'QASM_UNDEFINED', 3, 3],
    ['unknown identifier', 'OPENQASM 2.0;\nqreg q[2];\nrz(theta) q[0];', 'QASM_UNDEFINED', 3, 4],
    ['classical control other than if and for', 'OPENQASM 3.0;\nqubit[1] q;\nbit[1] c;\nwhile (c == 1) x q[0];', 'QASM_UNSUPPORTED', 4, 1],
    ['measure inside if', 'OPENQASM 2.0;\nqreg q[1];\ncreg c[1];\nif(c==1) measure q[0] -> c[0];', 'QASM_UNSUPPORTED', 4, 10],
    ['other include files', 'OPENQASM 2.0;\ninclude "mylib.inc";', 'QASM_UNSUPPORTED', 2, 9],
    ['unterminated comment', 'OPENQASM 2.0;\n/* never closed', 'QASM_SYNTAX_ERROR', 2, 1],
    ['version 4', 'OPENQASM 4.0;', 'QASM_UNSUPPORTED', 1, 10],
    ['non-finite parameter', 'OPENQASM 2.0;\nqreg q[1];\nrz(1/0) q[0];', 'NON_FINITE_PARAM', 3, 1],
  ])('%s', (_name, source, code, line, column) => {
    expect(parseError(source)).toEqual(expect.objectContaining({ code, line, column }));
  });

  it('stops runaway expansion with TOO_MANY_GATES', () => {
    const src = 'OPENQASM 2.0;\nqreg q[1];\ngate a x { h x; h x; }\ngate b x { a x; a x; }\ngate c x { b x; b x; }\nc q[0];';
    expect(() => parseQasm(src, { maxOps: 7 })).toThrow(/more than 7 operations/);
    expect(parseQasm(src).ops).toHaveLength(8);
  });

  it('stops runaway expansion of gates that emit nothing (2^23 calls of an empty body)', () => {
    // 22 levels keep a regression finite (seconds, then 'expected a parse error'); 40 would hang.
    let src = 'OPENQASM 2.0;\nqreg q[1];\ngate g0 x { }\n';
    for (let i = 1; i <= 22; i++) src += `gate g${i} x { g${i - 1} x; g${i - 1} x; }\n`;
    src += 'g22 q[0];\n';
    expect(parseError(src, { maxOps: 1000 })).toEqual(expect.objectContaining({ code: 'TOO_MANY_GATES', message: 'the program expands to more than 8000 user-gate calls' }));
  });
});
