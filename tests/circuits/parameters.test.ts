import { describe, expect, it } from 'vitest';
import { compileBinder } from '../../src/circuits/parameters.js';
import { affineOf, formatParamExpr, parseParamExpr, sumExpr, isZeroExpr, MAX_PARAM_EXPR_DEPTH } from '../../src/circuits/param-expr.js';
import { toQasm3 } from '../../src/circuits/qasm/export-qasm.js';
import { parseCircuitInput, toWire } from '../../src/circuits/wire-format.js';

const declared = new Set(['theta', 'phi']);
const parse = (s: string) => {
  const r = parseParamExpr(s, declared);
  if (!r.ok) throw new Error(r.error.message);
  return r.expr;
};

describe('symbolic parameters', () => {
  it('the grammar: numbers, pi, declared names, + - * /, unary minus, parentheses; bounded; no other names', () => {
    expect(formatParamExpr(parse('2*theta+pi/4'))).toBe('2*theta+pi/4');
    expect(formatParamExpr(parse('-(theta - phi)/2'))).toBe('-(theta-phi)/2');
    expect(formatParamExpr(parse('theta-(phi-1)'))).toBe('theta-(phi-1)');
    expect(parseParamExpr('theta*psi', declared)).toMatchObject({ ok: false, error: { code: 'PARAMETER_UNKNOWN' } });
    expect(parseParamExpr('sin(theta)', declared)).toMatchObject({ ok: false, error: { code: 'PARAMETER_UNKNOWN' } });
    expect(parseParamExpr('theta^2', declared)).toMatchObject({ ok: false, error: { code: 'WRONG_TYPE' } });
    expect(parseParamExpr(`${'('.repeat(MAX_PARAM_EXPR_DEPTH + 1)}theta${')'.repeat(MAX_PARAM_EXPR_DEPTH + 1)}`, declared)).toMatchObject({ ok: false, error: { code: 'EXPRESSION_TOO_DEEP' } });
    expect(parseParamExpr('theta+'.repeat(60) + '1', declared)).toMatchObject({ ok: false, error: { code: 'EXPRESSION_TOO_LONG' } });
  });

  it('affine forms merge symbolically and cancel exactly', () => {
    expect(formatParamExpr(sumExpr(parse('theta'), parse('2*theta+pi/4')))).toBe('3*theta+0.25*pi');
    expect(isZeroExpr(sumExpr(parse('theta/2'), parse('-theta/2')))).toBe(true);
    expect(affineOf(parse('theta*phi'))).toBeNull();
    expect(formatParamExpr(sumExpr(parse('theta*phi'), parse('1')))).toBe('theta*phi+1');
  });

  it('wire format round trip keeps parameters and expressions; binding evaluates them once compiled', () => {
    const input = {
      schema: '0.2',
      num_qubits: 1,
      num_clbits: 0,
      parameters: ['theta', 'phi'],
      gates: [{ op: 'u', qubits: [0], params: ['2*theta+pi/4', 0.5, 'phi/theta'] }],
      measurements: [],
      metadata: {},
    };
    const r = parseCircuitInput(input, undefined, { allowParameters: true });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(toWire(r.circuit)).toEqual(input);
    const bound = compileBinder(r.circuit).bind(Float64Array.from([0.1, 0.3]));
    expect(bound.parameters).toBeUndefined();
    expect(bound.ops[0]).toMatchObject({ kind: 'gate', params: [0.2 + Math.PI / 4, 0.5, 0.3 / 0.1] });
  });

  it('QASM 3 input angle / float parameters are imported and exported back', () => {
    const src =
      'OPENQASM 3.0;\ninclude "stdgates.inc";\ninput angle[32] theta;\ninput float[64] phi;\nqubit[2] q;\nbit[2] c;\nrx(2*theta + pi/4) q[0];\ncrz(-phi/2) q[0], q[1];\nrz(pi/2) q[1];\nc = measure q;\n';
    const r = parseCircuitInput({ format: 'qasm3', source: src }, undefined, { allowParameters: true });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.circuit.parameters).toEqual(['theta', 'phi']);
    const w = toWire(r.circuit);
    expect(w.gates.map((g) => g.params)).toEqual([['2*theta+pi/4'], ['-phi/2'], [Math.PI / 2]]);
    const out = toQasm3(r.circuit);
    expect(out).toContain('input float[64] theta;');
    expect(out).toContain('rx(2*theta+pi/4) q[0];');
    const back = parseCircuitInput({ format: 'qasm3', source: out }, undefined, { allowParameters: true });
    expect(back.ok && toWire(back.circuit)).toEqual(w);
    // Inputs with functions or modifiers are refused with a reason, not approximated.
    const bad = parseCircuitInput({ format: 'qasm3', source: src.replace('2*theta + pi/4', 'sin(theta)') }, undefined, { allowParameters: true });
    expect(bad.ok ? [] : bad.errors).toEqual([expect.objectContaining({ code: 'QASM_UNSUPPORTED' })]);
  });
});
