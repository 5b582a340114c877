import { addAngles } from './numeric-policy.js';

/**
 * The graph form of a path sum that the phase-teleport checker (phase-teleport-check.ts) replays
 * on: linear coefficients in quarter turns, half-turn couplings between variables, and gadgets (a hub
 * and a leaf per non-Clifford phase gate). The checker's own code: nothing here is shared with the
 * optimizer's pass.
 */

export type Kind = 'free' | 'sum' | 'hub' | 'leaf';
export interface Wire {
  vars: Set<number>;
  c: boolean;
}
export interface Member {
  pos: number;
  sign: 1 | -1;
}
/** A gadget group: Σ sign·angle of its members plus `quarters` quarter turns absorbed by rebuilds. */
export interface Gadget {
  leaf: number;
  quarters: number;
  members: Member[];
  free: boolean;
  /** Set when the group settled as a Clifford phase of k quarter turns. */
  settled?: number;
}

/** The group's angle with the given member angles, summed in member order (as the pass sums it). */
export function groupAngle(gd: Gadget, angle: (pos: number) => number, withQuarters: boolean): number {
  let a = withQuarters ? gd.quarters * (Math.PI / 2) : 0;
  for (const m of gd.members) a = addAngles(a, m.sign * angle(m.pos));
  return a;
}

export class GraphSum {
  readonly kind: Kind[] = [];
  readonly lin: number[] = [];
  readonly nb: Set<number>[] = [];
  readonly gadgets = new Map<number, Gadget>(); // by hub
  readonly done: Gadget[] = [];

  fresh(kind: Kind): number {
    this.kind.push(kind);
    this.lin.push(0);
    this.nb.push(new Set());
    return this.kind.length - 1;
  }

  edge(u: number, w: number): void {
    if (u === w) this.lin[u] = (this.lin[u]! + 2) % 4;
    else if (this.nb[u]!.delete(w)) this.nb[w]!.delete(u);
    else {
      this.nb[u]!.add(w);
      this.nb[w]!.add(u);
    }
  }

  /** (k/4)·[⊕vars ⊕ c]. */
  quarter(k: number, vars: readonly number[], c: boolean): void {
    const kk = (((c ? -k : k) % 4) + 4) % 4;
    if (kk === 0) return;
    for (const v of vars) this.lin[v] = (this.lin[v]! + kk) % 4;
    if (kk % 2 === 1) for (let i = 0; i < vars.length; i++) for (let j = i + 1; j < vars.length; j++) this.edge(vars[i]!, vars[j]!);
  }

  /** (1/2)·[a]·[b] for affine a, b. */
  half(a: Wire, b: Wire): void {
    for (const u of a.vars) for (const w of b.vars) this.edge(u, w);
    if (a.c) for (const w of b.vars) this.lin[w] = (this.lin[w]! + 2) % 4;
    if (b.c) for (const u of a.vars) this.lin[u] = (this.lin[u]! + 2) % 4;
  }

  /** Removes v from the graph, returning its coefficient and neighbours. */
  cut(v: number): { L: number; nbrs: number[] } {
    const nbrs = [...this.nb[v]!];
    for (const w of nbrs) this.nb[w]!.delete(v);
    this.nb[v]!.clear();
    const L = this.lin[v]!;
    this.lin[v] = 0;
    this.kind[v] = 'free'; // gone: no rule may name it again
    return { L, nbrs };
  }

  omega(y: number): void {
    const { L, nbrs } = this.cut(y);
    this.quarter(4 - L, nbrs, false);
  }

  pivot(y: number, p: number): void {
    const { L, nbrs } = this.cut(y);
    const rest = nbrs.filter((w) => w !== p);
    const { L: Lp, nbrs: pn } = this.cut(p);
    const g: Wire = { vars: new Set(rest), c: L === 2 };
    this.quarter(Lp, rest, g.c);
    for (const w of pn) this.half(g, { vars: new Set([w]), c: false });
  }

  /** S: the hub's neighbours besides its leaf, sorted; undefined when the leaf is not clean. */
  legs(hub: number, gd: Gadget): number[] | undefined {
    const ln = this.nb[gd.leaf]!;
    if (this.lin[gd.leaf] !== 0 || ln.size !== 1 || !ln.has(hub)) return undefined;
    return [...this.nb[hub]!].filter((w) => w !== gd.leaf).sort((x, y) => x - y);
  }
}
