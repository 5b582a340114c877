import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import { compileBinder } from '../../src/circuits/parameters.js';
import { ADDITIVE_GATES, mergeRotations } from '../../src/optimization/symbolic-merge.js';
import { checkSymbolicCertificate } from '../../src/verification/symbolic-check.js';
import { gateMatrix } from '../../src/verification/gate-matrices.js';
import { buildTestApp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';
import type { GateOp } from '../../src/circuits/ir.js';
import { formatParamExpr } from '../../src/circuits/param-expr.js';

const text = (op: GateOp) => (op.exprs?.[0] ? formatParamExpr(op.exprs[0]) : op.params[0]!);
const parse = (input: unknown) => {
  const r = parseCircuitInput(input, undefined, { allowParameters: true });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.circuit;
};

describe('optimizing parameterized circuits', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('the rule family: G(a)·G(b) = G(a+b) exactly and G(0) = I for every additive gate, at random angles', () => {
    for (const name of ADDITIVE_GATES.keys()) {
      for (let k = 0; k < 20; k++) {
        const a = (Math.random() * 2 - 1) * 10;
        const b = (Math.random() * 2 - 1) * 10;
        const ga = gateMatrix(name, [a])!;
        const gb = gateMatrix(name, [b])!;
        const gab = gateMatrix(name, [a + b])!;
        const d = ga.dim;
        for (let r = 0; r < d; r++)
          for (let c = 0; c < d; c++) {
            let re = 0;
            let im = 0;
            // (G(b)·G(a))[r][c]: a first, then b; the family commutes anyway.
            for (let x = 0; x < d; x++) {
              re += gb.re[r * d + x]! * ga.re[x * d + c]! - gb.im[r * d + x]! * ga.im[x * d + c]!;
              im += gb.re[r * d + x]! * ga.im[x * d + c]! + gb.im[r * d + x]! * ga.re[x * d + c]!;
            }
            expect(re).toBeCloseTo(gab.re[r * d + c]!, 10);
            expect(im).toBeCloseTo(gab.im[r * d + c]!, 10);
          }
        const id = gateMatrix(name, [0])!;
        for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) expect(id.re[r * d + c]).toBeCloseTo(r === c ? 1 : 0, 14);
      }
    }
  });

  it('rz(a)·rz(b) → rz(a+b), theta and -theta cancel, merges stop at other ops; the certificate replays and fails on tampering', () => {
    const c = parse({
      schema: '0.2',
      num_qubits: 2,
      parameters: ['a', 'b', 'theta'],
      gates: [
        { op: 'rz', qubits: [0], params: ['a'] },
        { op: 'rz', qubits: [0], params: ['2*b+pi/4'] },
        { op: 'rz', qubits: [0], params: [0.5] },
        { op: 'rzz', qubits: [0, 1], params: ['theta'] },
        { op: 'rzz', qubits: [1, 0], params: ['-theta'] },
        { op: 'h', qubits: [1] },
        { op: 'rx', qubits: [1], params: ['a*b'] },
        { op: 'rx', qubits: [1], params: ['1'] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'rz', qubits: [0], params: ['a'] },
      ],
    });
    const r = mergeRotations(c, text);
    const wire = r.circuit.ops.map((o) => (o.kind === 'gate' ? [o.name, o.qubits.join(), o.params.map((p, i) => (o.exprs?.[i] ? formatParamExpr(o.exprs[i]) : p)).join()] : [o.kind]));
    expect(wire).toEqual([
      ['rz', '0', 'a+2*b+0.25*pi+0.5'],
      ['h', '1', ''],
      ['rx', '1', 'a*b+1'],
      ['cx', '0,1', ''],
      ['rz', '0', 'a'],
    ]);
    expect(checkSymbolicCertificate(c, r.circuit, r.steps)).toBe(true);
    // Tampering: a wrong sum, or a merge across the cx, is refused.
    const wrong = r.steps.map((s, i) => (i === 0 ? { ...s, output: 'a+b' } : s));
    expect(checkSymbolicCertificate(c, r.circuit, wrong)).toMatch(/not the sum/);
    // Numeric check at random bindings: the merged circuit binds to the same unitary.
    const ba = compileBinder(c);
    const bb = compileBinder(r.circuit);
    const vs = Float64Array.from([0.3, -1.2, 2.2]);
    const [x, y] = [ba.bind(vs), bb.bind(vs)];
    expect(x.ops.length).toBe(10);
    expect(y.ops[0]).toMatchObject({ params: [expect.closeTo(0.3 + 2 * -1.2 + Math.PI / 4 + 0.5, 12)] });
  });

  it('POST /v1/circuits/optimize: a parameterized circuit is verified by the symbolic replay (all values) with random bindings as evidence', async () => {
    const circuit = {
      schema: '0.2',
      num_qubits: 2,
      num_clbits: 2,
      parameters: ['theta', 'phi'],
      gates: [
        { op: 'h', qubits: [0] },
        { op: 'rz', qubits: [0], params: ['theta'] },
        { op: 'rz', qubits: [0], params: ['phi/2'] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'ry', qubits: [1], params: ['phi'] },
        { op: 'ry', qubits: [1], params: ['-phi'] },
      ],
      measurements: [
        { qubit: 0, clbit: 0 },
        { qubit: 1, clbit: 1 },
      ],
    };
    const res = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', payload: { circuit, profile: 'balanced', output_format: 'qasm3' } });
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d.circuit.parameters).toEqual(['theta', 'phi']);
    expect(d.circuit.gates).toEqual([
      { op: 'h', qubits: [0] },
      { op: 'rz', qubits: [0], params: ['0.5*phi+theta'] },
      { op: 'cx', qubits: [0, 1] },
    ]);
    expect(d.proof.verified).toBe(true);
    expect(d.proof.methods.map((m: { method: string }) => m.method)).toEqual(['symbolic-replay', 'random-bindings']);
    expect(d.proof.methods[0].checked).toMatch(/every value/);
    expect(d.proof.methods[1]).toMatchObject({ equivalent: true, bindings: 5 });
    expect(d.qasm).toContain('input float[64] theta;');
    const dev = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', payload: { circuit, device: 'p1-falcon-7', backend_hint: 'provider-one' } });
    expect(dev.statusCode).toBe(422);
    expect(dev.json().error.code).toBe('OPTIMIZATION_TARGET_UNSUPPORTED');
  });
});
