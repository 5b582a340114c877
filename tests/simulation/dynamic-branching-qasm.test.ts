/**
 * OpenQASM 3 `if` / `for` programs (parsed by src/circuits/qasm) simulated with per-shot branching
 * and compared with the exact branch enumeration of dynamic-enumeration.ts (issue 22 "must show":
 * QASM 3 if/for against exact enumeration). L1 bound as in dynamic-branching-random.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import type { Circuit } from '../../src/circuits/ir.js';
import { simulate } from '../../src/simulation/index.js';
import { exactDistribution, l1Bound, l1Distance } from './dynamic-enumeration.js';

const parse = (source: string): Circuit => {
  const r = parseCircuitInput({ format: 'qasm3', source });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.circuit;
};

const PROGRAM = `OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
for int i in [0:2] {
  ry(0.4 * (i + 1)) q[i];
}
c[0] = measure q[0];
if (c[0]) {
  x q[1];
  h q[2];
}
c[1] = measure q[1];
if (c == 3) z q[2];
if (!c[1]) rx(pi / 3) q[2];
for int k in {0, 1} {
  if (c[k] == 1) ry(0.3) q[2];
}
c[2] = measure q[2];
`;

describe('dynamic circuits from OpenQASM 3 against exact enumeration', () => {
  it('for loops unrolled, if on bits and on the register: counts within the L1 bound of the exact distribution', () => {
    const c = parse(PROGRAM);
    expect(c.ops.filter((op) => op.kind === 'conditioned').length).toBe(6);
    const exact = exactDistribution(c);
    const shots = 100_000;
    const r = simulate(c, { shots, seed: 17 });
    expect(r.probabilitiesKind).toBe('estimated');
    expect(l1Distance(r.counts, shots, exact)).toBeLessThan(l1Bound(8, shots, 1e-9));
  });

  it('repeat-until-success style active reset in a loop leaves every qubit in 0', () => {
    const c = parse(`OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] m;
bit[2] out;
for int r in [0:2] {
  h q[0];
  cx q[0], q[1];
  m[0] = measure q[0];
  m[1] = measure q[1];
  if (m[0]) x q[0];
  if (m[1]) x q[1];
}
out[0] = measure q[0];
out[1] = measure q[1];
`);
    const r = simulate(c, { shots: 5000, seed: 1 });
    // out is the last register: leftmost two characters.
    for (const k of Object.keys(r.counts)) expect(k.slice(0, 2)).toBe('00');
    const exact = exactDistribution(c);
    expect([...exact.keys()].sort()).toEqual(['0000', '0011']);
    expect(l1Distance(r.counts, 5000, exact)).toBeLessThan(l1Bound(16, 5000, 1e-9));
  });
});
