import { describe, expect, it } from 'vitest';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import { toQasm2 } from '../../src/circuits/qasm/export-qasm.js';

/** qelib1.inc's c3sqrtx body with the first sign given: −π/8 first (as in the include file) is √X†. */
function body(sign: '-' | ''): string {
  const s = (k: number) => (k % 2 === 0 ? sign : sign === '-' ? '' : '-');
  const lines = [
    `h d; cu1(${s(0)}pi/8) a,d; h d;`,
    'cx a,b;',
    `h d; cu1(${s(1)}pi/8) b,d; h d;`,
    'cx a,b;',
    `h d; cu1(${s(2)}pi/8) b,d; h d;`,
    'cx b,c;',
    `h d; cu1(${s(3)}pi/8) c,d; h d;`,
    'cx a,c;',
    `h d; cu1(${s(4)}pi/8) c,d; h d;`,
    'cx b,c;',
    `h d; cu1(${s(5)}pi/8) c,d; h d;`,
    'cx a,c;',
    `h d; cu1(${s(6)}pi/8) c,d; h d;`,
  ];
  return `gate c3sqrtx a,b,c,d {\n${lines.join('\n')}\n}`;
}

const program = (def: string) => `OPENQASM 2.0;\ninclude "qelib1.inc";\n${def}\nqreg q[4];\nc3sqrtx q[0],q[1],q[2],q[3];\n`;

describe('c3sqrtx defined in a QASM 2 file (the catalogue meaning is kept)', () => {
  it("qelib1.inc's body verbatim (3-controlled √X†): accepted with a warning naming the difference", () => {
    const r = parseCircuitInput({ format: 'qasm2', source: program(body('-')) });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.circuit.ops).toHaveLength(1);
    expect(r.circuit.ops[0]).toMatchObject({ name: 'c3sqrtx' });
    expect(r.warnings.join(' ')).toMatch(/√X†.*3-controlled √X/);
  });

  it("a body that is the 3-controlled √X, or the exporter's own definition: no warning", () => {
    for (const def of [body(''), 'gate c3sqrtx a, b, c, d { ctrl(3) @ sx a, b, c, d; }']) {
      const r = parseCircuitInput({ format: 'qasm2', source: program(def) });
      expect(r.ok && r.warnings).toEqual([]);
    }
    const exported = toQasm2({ numQubits: 4, numClbits: 0, ops: [{ kind: 'gate', name: 'c3sqrtx', qubits: [0, 1, 2, 3], params: [] }], metadata: {} });
    const back = parseCircuitInput({ format: 'qasm2', source: exported });
    expect(back.ok && back.warnings).toEqual([]);
  });
});
