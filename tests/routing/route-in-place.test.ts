import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate, type GateOp } from '../../src/circuits/ir.js';
import { getDevice } from '../../src/devices/device-catalogue.js';
import { restoreLayout, routeInPlace } from '../../src/routing/route-in-place.js';
import type { Edge } from '../../src/routing/sabre.js';
import { ruleById } from '../../src/verification/certificate-rules.js';

/** Where each qubit is after `swaps`, starting from `layout` (layout[v] = wire of v). */
function apply(layout: readonly number[], swaps: readonly GateOp[]): number[] {
  const pos = [...layout];
  for (const s of swaps) {
    const [x, y] = s.qubits as [number, number];
    const vx = pos.indexOf(x);
    const vy = pos.indexOf(y);
    pos[vx] = y;
    pos[vy] = x;
  }
  return pos;
}

const coupled = (edges: readonly Edge[]) => {
  const set = new Set(edges.flatMap(([a, b]) => [`${a},${b}`, `${b},${a}`]));
  return (o: GateOp) => o.qubits.length < 2 || set.has(o.qubits.join(','));
};

const falcon = getDevice('p1-falcon-7')!.couplingMap as readonly Edge[];
const grid = getDevice('p2-grid-9')!.couplingMap as readonly Edge[];
// two parts: 0-1-2 and 3-4
const split: Edge[] = [
  [0, 1],
  [1, 2],
  [3, 4],
];

describe('routing in place (src/routing)', () => {
  it('restoreLayout brings every qubit home with SWAPs on coupled wires only', () => {
    for (const [edges, n] of [
      [falcon, 7],
      [grid, 9],
    ] as const) {
      fc.assert(
        fc.property(fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }), (layout) => {
          const swaps = restoreLayout(layout, edges);
          expect(swaps.every(coupled(edges))).toBe(true);
          expect(apply(layout, swaps)).toEqual([...Array(n).keys()]);
        }),
        { numRuns: 100 },
      );
    }
    expect(restoreLayout([0, 1, 2, 3, 4], split)).toEqual([]);
    const back = restoreLayout([2, 0, 1, 4, 3], split);
    expect(apply([2, 0, 1, 4, 3], back)).toEqual([0, 1, 2, 3, 4]);
  });

  it('routeInPlace: every two-qubit gate on coupled wires, the layout restored, the gates otherwise unchanged', () => {
    const ops = [gate('h', [0]), gate('cx', [0, 6]), gate('cz', [2, 4]), gate('rz', [4], [0.25]), gate('cx', [3, 0]), gate('swap', [1, 5])];
    const r = routeInPlace(ops, 7, falcon);
    expect(r.ops.every(coupled(falcon))).toBe(true);
    // the input's own SWAP stays a gate; the router's are counted
    expect(r.ops.filter((o) => o.name === 'swap').length).toBe(r.swaps + 1);
    expect(r.swaps).toBeGreaterThan(0);
    // the certificate checker's reading: the same gates per qubit, every qubit back on its wire
    expect(ruleById('route-swaps')!.check(ops, r.ops)).toBe(true);
  });

  it('a run that needs no SWAP comes back unchanged', () => {
    const ops = [gate('cx', [0, 1]), gate('h', [2]), gate('cz', [1, 2])];
    expect(
      routeInPlace(ops, 3, [
        [0, 1],
        [1, 2],
      ]),
    ).toEqual({ ops, swaps: 0 });
  });
});
