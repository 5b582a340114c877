/**
 * SABRE routing that keeps the qubit layout: every qubit starts on its own wire and is brought
 * back to it at the end, so the routed gates equal the input exactly (no permutation to carry).
 * The optimizer needs this: its output must act on the same registers as its input. Execution,
 * which may place qubits anywhere, uses `sabreRoute` with its layout search instead.
 */
import type { GateOp } from '../circuits/ir.js';
import { gate } from '../circuits/ir.js';
import { distanceMatrix, sabrePass, type Edge } from './sabre.js';

export interface InPlaceRouting {
  /** The gates on the same wires as the input, SWAPs included (as `swap` gates). */
  readonly ops: GateOp[];
  readonly swaps: number;
}

/**
 * SWAPs along the coupling map that move every qubit home: `layout[v]` is the wire qubit v is
 * on now; afterwards qubit v is on wire v. Each connected part is undone on a BFS spanning tree,
 * wires taken in reverse BFS order: each is then a leaf of the part still to do, so bringing its
 * qubit home along the tree never disturbs a wire already done.
 */
export function restoreLayout(layout: readonly number[], edges: readonly Edge[]): GateOp[] {
  const p = layout.length;
  const pos = [...layout];
  const at = new Array<number>(p);
  pos.forEach((w, v) => {
    at[w] = v;
  });
  const adj: number[][] = Array.from({ length: p }, () => []);
  for (const [a, b] of edges) {
    adj[a]!.push(b);
    adj[b]!.push(a);
  }
  const parent = new Array<number>(p).fill(-1);
  const depth = new Array<number>(p).fill(-1);
  const out: GateOp[] = [];
  const swap = (x: number, y: number) => {
    const vx = at[x]!;
    const vy = at[y]!;
    at[x] = vy;
    at[y] = vx;
    pos[vx] = y;
    pos[vy] = x;
    out.push(gate('swap', [x, y]));
  };
  for (let root = 0; root < p; root++) {
    if (depth[root] !== -1) continue;
    depth[root] = 0;
    const order = [root];
    for (let i = 0; i < order.length; i++) {
      const x = order[i]!;
      for (const y of adj[x]!)
        if (depth[y] === -1) {
          depth[y] = depth[x]! + 1;
          parent[y] = x;
          order.push(y);
        }
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const t = order[i]!;
      const w = pos[t]!;
      if (w === t) continue;
      // tree path w → t through their lowest common ancestor
      const up: number[] = [];
      const down: number[] = [];
      let a = w;
      let b = t;
      while (a !== b) {
        if (depth[a]! >= depth[b]!) {
          up.push(a);
          a = parent[a]!;
        } else {
          down.push(b);
          b = parent[b]!;
        }
      }
      const path = [...up, a, ...down.reverse()];
      for (let k = 0; k + 1 < path.length; k++) swap(path[k]!, path[k + 1]!);
    }
  }
  return out;
}

/**
 * Routes gates of at most two qubits on wires 0..n-1 onto `edges` (pairs within 0..n-1): one SABRE
 * pass from the identity layout, then the SWAPs that restore it. Every two-qubit gate's qubits
 * must be connected on the map (the caller says which are not, in its own words).
 */
export function routeInPlace(ops: readonly GateOp[], n: number, edges: readonly Edge[], dist: number[][] = distanceMatrix(n, edges)): InPlaceRouting {
  const identity = Array.from({ length: n }, (_, q) => q);
  const pass = sabrePass(ops, n, edges, dist, identity);
  const back = restoreLayout(pass.finalLayout, edges);
  // Gates in, gates out: SABRE only renames qubits and adds swaps.
  return { ops: [...(pass.ops as GateOp[]), ...back], swaps: pass.swaps + back.length };
}
