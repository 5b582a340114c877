import { describe, expect, it } from 'vitest';
import { barrier, circuit, gate, measure, reset, type Operation } from '../../src/circuits/ir.js';
import { allPairs, couplingScore, qualitativeCoupling } from '../../src/coupling/qualitative.js';

const byPair = (q: ReturnType<typeof qualitativeCoupling>) => new Map(q.pairs.map((p) => [p.qubits.join(','), p]));

describe('qualitative coupling', () => {
  it('Bell: one edge, one component, the pair may be entangled', () => {
    const q = qualitativeCoupling(circuit(2, 2, [gate('h', [0]), gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]), allPairs(2));
    expect(q.interaction_graph.edges).toEqual([{ qubits: [0, 1], weight: 1, gates: { cx: 1 } }]);
    expect(q.components).toEqual([[0, 1]]);
    expect(q.light_cones).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(q.pairs).toEqual([{ qubits: [0, 1], interaction_weight: 1, light_cone_overlap: 1, may_be_entangled: true, score: 0.75 }]);
    expect(q.pairs_may_be_entangled).toBe(1);
  });

  it('weights count every multi-qubit gate on a pair; a 3-qubit gate counts for each of its pairs', () => {
    const q = qualitativeCoupling(circuit(4, 0, [gate('cx', [0, 1]), gate('cz', [1, 0]), gate('ccx', [0, 1, 2]), gate('h', [3])]), allPairs(4));
    expect(q.interaction_graph.edges).toEqual([
      { qubits: [0, 1], weight: 3, gates: { cx: 1, cz: 1, ccx: 1 } },
      { qubits: [0, 2], weight: 1, gates: { ccx: 1 } },
      { qubits: [1, 2], weight: 1, gates: { ccx: 1 } },
    ]);
    expect(q.components).toEqual([[0, 1, 2], [3]]);
    const p = byPair(q);
    expect(p.get('0,3')!.may_be_entangled).toBe(false);
    expect(p.get('0,3')!.score).toBe(0);
    expect(p.get('0,1')!.score).toBeGreaterThan(p.get('0,2')!.score);
  });

  it('light cones respect order: a—c, b—d, then c—d leaves a and b uncoupled', () => {
    const q = qualitativeCoupling(circuit(4, 0, [gate('h', [0]), gate('cx', [0, 2]), gate('h', [1]), gate('cx', [1, 3]), gate('cx', [2, 3])]), allPairs(4));
    // Connected in the interaction graph …
    expect(q.components).toEqual([[0, 1, 2, 3]]);
    const p = byPair(q);
    // … but a (0) and b (1) have disjoint light cones: provably uncorrelated.
    expect(p.get('0,1')!.may_be_entangled).toBe(false);
    expect(p.get('2,3')!.may_be_entangled).toBe(true);
    expect(p.get('0,3')!.may_be_entangled).toBe(true);
    expect(q.light_cones[0]).toEqual([0, 2]);
    expect(q.light_cones[3]).toEqual([0, 1, 2, 3]);
  });

  it('a reset gives the qubit a fresh cone; measurements and barriers keep it', () => {
    const ops = [gate('h', [0]), gate('cx', [0, 1]), measure(1, 0), barrier([0, 1, 2]), reset(0), gate('cx', [0, 2])];
    const p = byPair(qualitativeCoupling(circuit(3, 1, ops), allPairs(3)));
    expect(p.get('0,1')!.may_be_entangled).toBe(false);
    expect(p.get('0,2')!.may_be_entangled).toBe(true);
    expect(p.get('1,2')!.may_be_entangled).toBe(false);
  });

  it('a SWAP exchanges light cones instead of merging them (routing does not create coupling)', () => {
    // Bell on 0,1, then swap 1 and 2: the Bell pair is now 0,2; qubit 1 holds 2's untouched |0⟩.
    const q = qualitativeCoupling(circuit(3, 0, [gate('h', [0]), gate('cx', [0, 1]), gate('swap', [1, 2])]), allPairs(3));
    const p = byPair(q);
    expect(p.get('0,2')!.may_be_entangled).toBe(true);
    expect(p.get('0,1')!.may_be_entangled).toBe(false);
    expect(p.get('1,2')!.may_be_entangled).toBe(false);
    expect(q.light_cones).toEqual([[0, 1], [2], [0, 1]]);
    // It is still an edge of the interaction graph.
    expect(p.get('1,2')!.interaction_weight).toBe(1);
  });

  it('requested pairs come back as [min, max] in request order', () => {
    const q = qualitativeCoupling(circuit(3, 0, [gate('cx', [2, 1])]), [
      [2, 1],
      [0, 2],
    ]);
    expect(q.pairs.map((p) => p.qubits)).toEqual([
      [1, 2],
      [0, 2],
    ]);
    expect(q.pairs.map((p) => p.may_be_entangled)).toEqual([true, false]);
  });

  it('the score is 0 iff the cones are disjoint and grows with direct gates', () => {
    expect(couplingScore(5, 0)).toBe(0);
    expect(couplingScore(0, 0.5)).toBe(0.25);
    expect(couplingScore(1, 1)).toBe(0.75);
    expect(couplingScore(2, 1)).toBe(0.875);
  });

  it('handles more than 32 source labels (wide registers and many resets)', () => {
    const ops: Operation[] = [gate('h', [0])];
    for (let q = 1; q < 40; q++) ops.push(gate('cx', [q - 1, q]));
    for (let k = 0; k < 40; k++) ops.push(reset(39));
    const q = qualitativeCoupling(circuit(40, 0, ops), [
      [0, 39],
      [0, 38],
    ]);
    expect(q.pairs.map((p) => p.may_be_entangled)).toEqual([false, true]);
    expect(q.light_cones[38]).toHaveLength(40);
  });
});
