import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GATES } from '../../src/circuits/gates.js';
import { barrier, circuit, gate, measure, reset, type Circuit, type Operation } from '../../src/circuits/ir.js';
import { formatAngle, toQasm2, toQasm3 } from '../../src/circuits/qasm/export-qasm.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { parseCircuitInput, toWire } from '../../src/circuits/wire-format.js';

const SPECS = [...GATES.values()];

const angle = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x)),
  fc.tuple(fc.integer({ min: -16, max: 16 }), fc.constantFrom(1, 2, 4, 8)).map(([k, d]) => (k * Math.PI) / d || 0),
  fc.double({ min: -10, max: 10, noNaN: true }).map((x) => (x === 0 ? 0 : x)),
);

function opArb(nq: number, nc: number): fc.Arbitrary<Operation> {
  const gates = SPECS.filter((s) => s.arity <= nq);
  const arbs: fc.Arbitrary<Operation>[] = [
    fc
      .constantFrom(...gates)
      .chain((s) =>
        fc
          .tuple(fc.shuffledSubarray([...Array(nq).keys()], { minLength: s.arity, maxLength: s.arity }), fc.array(angle, { minLength: s.params, maxLength: s.params }))
          .map(([qs, ps]) => gate(s.name, qs, ps)),
      ),
    fc.integer({ min: 0, max: nq - 1 }).map((q) => reset(q)),
    fc.shuffledSubarray([...Array(nq).keys()], { minLength: 1 }).map((qs) => barrier(qs)),
  ];
  if (nc > 0) arbs.push(fc.tuple(fc.integer({ min: 0, max: nq - 1 }), fc.integer({ min: 0, max: nc - 1 })).map(([q, c]) => measure(q, c)));
  return fc.oneof(...arbs);
}

/** Bits 0..n-1 split into named registers in order (or none: the default layout). */
function layoutArb(n: number, prefix: string): fc.Arbitrary<{ name: string; size: number }[] | undefined> {
  if (n === 0) return fc.constant(undefined);
  return fc.option(
    fc.array(fc.boolean(), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
      const sizes = [1];
      for (const cut of cuts)
        if (cut) sizes.push(1);
        else sizes[sizes.length - 1]!++;
      return sizes.map((size, i) => ({ name: `${prefix}${i}`, size }));
    }),
    { nil: undefined },
  );
}

const circuitArb: fc.Arbitrary<Circuit> = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 4 }))
  .chain(([nq, nc]) =>
    fc
      .tuple(fc.array(opArb(nq, nc), { maxLength: 40 }), layoutArb(nq, 'qr'), layoutArb(nc, 'cr'))
      .map(([ops, quantumRegisters, registers]) => circuit(nq, nc, ops, {}, { quantumRegisters, registers })),
  );

describe('OpenQASM round trips', () => {
  it('circuit → QASM 2 → circuit is unchanged', () => {
    fc.assert(
      fc.property(circuitArb, (c) => {
        expect(parseQasm(toQasm2(c))).toEqual(c);
      }),
      { numRuns: 300 },
    );
  });

  it('circuit → QASM 3 → circuit is unchanged', () => {
    fc.assert(
      fc.property(circuitArb, (c) => {
        expect(parseQasm(toQasm3(c))).toEqual(c);
      }),
      { numRuns: 300 },
    );
  });

  it('circuit → wire 0.2 → circuit is unchanged', () => {
    fc.assert(
      fc.property(circuitArb, (c) => {
        const r = parseCircuitInput(JSON.parse(JSON.stringify(toWire(c))), { maxQubits: 64, maxGates: 1000, maxDepth: 1000 });
        expect(r.ok && r.circuit).toEqual(c);
      }),
      { numRuns: 300 },
    );
  });

  it('writes multiples of pi as pi expressions that read back exactly', () => {
    expect(formatAngle(Math.PI / 4)).toBe('pi/4');
    expect(formatAngle((-3 * Math.PI) / 4)).toBe('-3*pi/4');
    expect(formatAngle(-Math.PI)).toBe('-pi');
    expect(formatAngle(2 * Math.PI)).toBe('2*pi');
    expect(formatAngle(0.1)).toBe('0.1');
    expect(formatAngle(Math.PI / 3)).toBe('pi/3');
    expect(formatAngle((2 * Math.PI) / 3)).toBe('2*pi/3');
    expect(formatAngle(-(Math.PI / 6))).toBe('-pi/6');
    expect(formatAngle((5 * Math.PI) / 12)).toBe('5*pi/12');
    expect(formatAngle(Math.PI / 16)).toBe('pi/16');
    // Every written multiple reads back as exactly the same double.
    for (const d of [1, 2, 3, 4, 6, 8, 12, 16])
      for (let k = -4 * d; k <= 4 * d; k++) {
        const v = k === 1 ? Math.PI / d : k === -1 ? -(Math.PI / d) : (k * Math.PI) / d;
        const op = parseQasm(`OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\nrz(${formatAngle(v)}) q[0];\n`).ops[0];
        expect(op?.kind === 'gate' ? op.params[0] : undefined, formatAngle(v)).toBe(v);
      }
    expect(toQasm2(circuit(1, 0, [gate('rz', [0], [Math.PI / 2])]))).toContain('rz(pi/2) q[0];');
  });

  it('defines gates missing from the include file in the header', () => {
    const c = circuit(3, 0, [gate('ccz', [0, 1, 2]), gate('ryy', [0, 1], [0.5]), gate('sxdg', [2])]);
    const q2 = toQasm2(c);
    expect(q2).toContain('gate ccz a, b, c {');
    expect(q2).toContain('gate ryy(theta) a, b {');
    expect(q2).not.toContain('gate sxdg'); // in qelib1.inc's extended list
    const q3 = toQasm3(c);
    expect(q3).toContain('gate sxdg a { inv @ sx a; }');
    expect(q3).not.toContain('gate h ');
  });
});
