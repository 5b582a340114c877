import { g, phaseGate } from '../gate-info.js';
import type { GateOp } from '../../circuits/ir.js';

/**
 * Where a TODD region's phases go when it is rebuilt on its own skeleton (todd-regions.ts): a
 * parity some wire carries at some point gets one phase gate there; the others are computed by
 * CNOTs, all of one point's by one parity network (Amy, Azimzadeh & Mosca 2018, "On the
 * CNOT-complexity of CNOT-phase circuits": the Gray-code idea, here as a greedy walk of one root wire).
 */

const QUARTER = Math.PI / 4;
const mod8 = (k: number) => ((k % 8) + 8) % 8;

export interface Wires {
  lin: bigint[];
  cst: boolean[];
}

/** Wire values along a skeleton: CNOT, X and SWAP act on the parities, H starts a path variable. */
export function walk(skeleton: readonly GateOp[], n: number): Wires[] {
  const points: Wires[] = [];
  const w: Wires = { lin: Array.from({ length: n }, (_, q) => 1n << BigInt(q)), cst: Array.from({ length: n }, () => false) };
  let vars = n;
  const snap = () => points.push({ lin: [...w.lin], cst: [...w.cst] });
  snap();
  for (const op of skeleton) {
    const [a, b] = op.qubits as [number, number];
    if (op.name === 'cx') {
      w.lin[b] = w.lin[b]! ^ w.lin[a]!;
      w.cst[b] = w.cst[b] !== w.cst[a];
    } else if (op.name === 'x') w.cst[a] = !w.cst[a];
    else if (op.name === 'h') {
      w.lin[a] = 1n << BigInt(vars++);
      w.cst[a] = false;
    } else {
      [w.lin[a], w.lin[b]] = [w.lin[b]!, w.lin[a]!];
      [w.cst[a], w.cst[b]] = [w.cst[b]!, w.cst[a]!];
    }
    snap();
  }
  return points;
}

interface Row {
  l: bigint;
  s: bigint;
  top: bigint;
}

/** Where a parity can get its phase: a wire point carrying it, or the cheapest CNOT ladder (wires S at point t). */
export class Placement {
  private readonly exact = new Map<bigint, { t: number; q: number }>();
  private readonly bases: Row[][];
  private readonly memo = new Map<bigint, { t: number; S: number[] } | null>();

  constructor(readonly points: readonly Wires[]) {
    points.forEach((p, t) =>
      p.lin.forEach((l, q) => {
        if (!this.exact.has(l)) this.exact.set(l, { t, q });
      }),
    );
    // each point's wires in echelon form (with the wires each row combines), for ladder queries
    this.bases = points.map((p) => {
      const basis: Row[] = [];
      p.lin.forEach((l0, q) => {
        let l = l0;
        let s = 1n << BigInt(q);
        for (const b of basis)
          if (l & b.top) {
            l ^= b.l;
            s ^= b.s;
          }
        if (l === 0n) return;
        let top = 1n;
        while (!(l & top)) top <<= 1n;
        for (const b of basis)
          if (b.l & top) {
            b.l ^= l;
            b.s ^= s;
          }
        basis.push({ l, s, top });
      });
      return basis;
    });
  }

  at(y: bigint): { t: number; q: number } | undefined {
    return this.exact.get(y);
  }

  ladder(y: bigint): { t: number; S: number[] } | undefined {
    const known = this.memo.get(y);
    if (known !== undefined) return known ?? undefined;
    let best: { t: number; S: number[] } | undefined;
    this.bases.forEach((basis, t) => {
      let l = y;
      let s = 0n;
      for (const b of basis)
        if (l & b.top) {
          l ^= b.l;
          s ^= b.s;
        }
      if (l !== 0n) return;
      const S: number[] = [];
      for (let q = 0; s !== 0n; s >>= 1n, q++) if (s & 1n) S.push(q);
      if (!best || S.length < best.S.length) best = { t, S };
    });
    this.memo.set(y, best ?? null);
    return best;
  }

  /** The wires (bit mask) whose parities sum to y at point t, or undefined when they do not span it. */
  wiresAt(y: bigint, t: number): bigint | undefined {
    let l = y;
    let s = 0n;
    for (const b of this.bases[t]!)
      if (l & b.top) {
        l ^= b.l;
        s ^= b.s;
      }
    return l === 0n ? s : undefined;
  }

  /** The points whose wires span y (where a CNOT ladder could give it its phase). */
  spanning(y: bigint): Uint8Array {
    const out = new Uint8Array(this.bases.length);
    this.bases.forEach((basis, t) => {
      let l = y;
      for (const b of basis) if (l & b.top) l ^= b.l;
      out[t] = l === 0n ? 1 : 0;
    });
    return out;
  }

  placeable(y: bigint): boolean {
    return this.at(y) !== undefined || this.ladder(y) !== undefined;
  }
}

/** A phase a CNOT ladder must give at one point: the wires whose parity sum is the term (bit mask), its π/4 multiple. */
export interface Rung {
  wires: bigint;
  k: number;
}

const popcount = (m: bigint) => {
  let c = 0;
  for (let x = m; x !== 0n; x &= x - 1n) c++;
  return c;
};

/**
 * The phases one point needs from ladders, as one parity network per root wire (the Gray-code walk of
 * Amy, Azimzadeh & Mosca 2018, "On the CNOT-complexity of CNOT-phase circuits", greedily ordered): the
 * root takes each wanted parity in turn, moving from one to the next by the CNOTs of their difference,
 * and is restored once at the end. A walk never costs more than one ladder per parity (each move is at
 * most the two ladders it replaces), and parities that differ in one wire cost one CNOT each.
 */
export function parityNetwork(rungs: readonly Rung[], p: Wires, phase: (q: number, k: number, negate: boolean) => GateOp): GateOp[] {
  const a = networkBy(rungs, p, phase, false);
  const b = networkBy(rungs, p, phase, true);
  return b.length < a.length ? b : a;
}

function networkBy(rungs: readonly Rung[], p: Wires, phase: (q: number, k: number, negate: boolean) => GateOp, byRate: boolean): GateOp[] {
  const out: GateOp[] = [];
  let left = [...rungs];
  const n = p.lin.length;
  /** The CNOT walk through `mine` from root `root` (nearest next parity first), restored at the end. */
  const walkFrom = (root: number, mine0: readonly Rung[], emit: boolean): number => {
    const unit = 1n << BigInt(root);
    let mine = [...mine0];
    let cur = unit;
    let cnots = 0;
    const moveTo = (target: bigint) => {
      for (let q = 0, d = cur ^ target; d !== 0n; d >>= 1n, q++)
        if (d & 1n) {
          cnots++;
          if (emit) out.push(g('cx', [q, root]));
        }
      cur = target;
    };
    while (mine.length) {
      let pick = 0;
      mine.forEach((r, i) => {
        if (popcount(r.wires ^ cur) < popcount(mine[pick]!.wires ^ cur)) pick = i;
      });
      const r = mine[pick]!;
      mine = mine.filter((_, i) => i !== pick);
      moveTo(r.wires);
      if (emit) {
        let cst = false;
        for (let q = 0, x = r.wires; x !== 0n; x >>= 1n, q++) if (x & 1n) cst = cst !== p.cst[q];
        out.push(phase(root, r.k, cst));
      }
    }
    moveTo(unit);
    return cnots;
  };
  while (left.length) {
    // the root: the wire whose walk costs fewest CNOTs per parity it takes (ties: the one most contain)
    let root = -1;
    let bestRate = Infinity;
    let most = -1;
    for (let q = 0; q < n; q++) {
      const mine = left.filter((r) => (r.wires >> BigInt(q)) & 1n);
      if (!mine.length) continue;
      const rate = byRate ? walkFrom(q, mine, false) / mine.length : -mine.length;
      if (rate < bestRate || (rate === bestRate && mine.length > most)) [root, bestRate, most] = [q, rate, mine.length];
    }
    const unit = 1n << BigInt(root);
    walkFrom(
      root,
      left.filter((r) => r.wires & unit),
      true,
    );
    left = left.filter((r) => !(r.wires & unit));
  }
  return out;
}

/**
 * The region rebuilt on its own skeleton (CNOT, X, SWAP, H): each parity's phase goes to the first
 * wire point that carries it; the parities no point carries are computed at the point where their
 * ladder is cheapest, all of one point's by one parity network (parityNetwork). Qubits are the
 * region's local numbers. Undefined when some parity has no place (its variables are never alive
 * together).
 */
export function synthesize(skeleton: readonly GateOp[], place: Placement, terms: ReadonlyMap<bigint, number>): GateOp[] | undefined {
  const at: GateOp[][] = place.points.map(() => []);
  const phase = (q: number, k: number, negate: boolean) => phaseGate(q, (negate ? -k : k) * QUARTER)!;
  const unplaced: { y: bigint; k: number }[] = [];
  for (const [y, k] of terms) {
    if (mod8(k) === 0) continue;
    const hit = place.at(y);
    if (hit) at[hit.t]!.push(phase(hit.q, k, place.points[hit.t]!.cst[hit.q]!));
    else if (place.placeable(y)) unplaced.push({ y, k });
    else return undefined;
  }
  // two ways to choose each ladder's point: its own cheapest, or where most of them can share one
  // network (the point spanning most of those left); the one with fewer CNOTs is kept
  const networks = (rungs: Rung[][]) => rungs.map((rs, t) => (rs.length ? parityNetwork(rs, place.points[t]!, phase) : []));
  const own: Rung[][] = place.points.map(() => []);
  for (const { y, k } of unplaced) {
    const lad = place.ladder(y)!;
    own[lad.t]!.push({ wires: lad.S.reduce((m, q) => m | (1n << BigInt(q)), 0n), k });
  }
  const shared: Rung[][] = place.points.map(() => []);
  let left = unplaced;
  while (left.length) {
    let best = { t: 0, n: 0, w: 0 };
    for (let t = 0; t < place.points.length; t++) {
      let n = 0;
      let w = 0;
      for (const { y } of left) {
        const s = place.wiresAt(y, t);
        if (s !== undefined) {
          n++;
          w += popcount(s);
        }
      }
      if (n > best.n || (n === best.n && w < best.w)) best = { t, n, w };
    }
    left = left.filter(({ y, k }) => {
      const s = place.wiresAt(y, best.t);
      if (s === undefined) return true;
      shared[best.t]!.push({ wires: s, k });
      return false;
    });
  }
  const size = (ns: GateOp[][]) => ns.reduce((c, n) => c + n.length, 0);
  const chosen = size(networks(shared)) < size(networks(own)) ? shared : own;
  improvePlacement(chosen, place, phase);
  networks(chosen).forEach((n, t) => at[t]!.push(...n));
  const out: GateOp[] = [...at[0]!];
  skeleton.forEach((op, i) => out.push(op, ...at[i + 1]!));
  return out;
}

/** Sweeps of the placement's local search (each tries every ladder parity at every point holding a network). */
const PLACEMENT_SWEEPS = 4;

/**
 * Moves ladder parities between points while that shortens the networks: a parity joins a point whose
 * network already computes parities near it (a Gray-code walk's step costs the wires two parities
 * differ in), where the greedy choices (each parity's cheapest point, or the point spanning most)
 * leave it alone. gf2^4_mult's framed region in groups of 30: 176 → 165 gates after the search.
 */
function improvePlacement(rungs: Rung[][], place: Placement, phase: (q: number, k: number, negate: boolean) => GateOp): void {
  const length = (rs: readonly Rung[], t: number) => (rs.length ? parityNetwork(rs, place.points[t]!, phase).length : 0);
  const costs = rungs.map((rs, t) => length(rs, t));
  // each rung with the parity it computes (its wires' parities summed at its point)
  const parityOf = (r: Rung, t: number) => {
    let y = 0n;
    for (let q = 0, m = r.wires; m !== 0n; m >>= 1n, q++) if (m & 1n) y ^= place.points[t]!.lin[q]!;
    return y;
  };
  const items = rungs.flatMap((rs, t) => rs.map((r) => ({ y: parityOf(r, t), k: r.k, t, rung: r })));
  for (let sweep = 0; sweep < PLACEMENT_SWEEPS; sweep++) {
    let moved = false;
    for (const it of items) {
      const from = it.t;
      const rest = rungs[from]!.filter((r) => r !== it.rung);
      const restCost = length(rest, from);
      let best: { t: number; gain: number; rung: Rung; cost: number } | undefined;
      rungs.forEach((rs, t) => {
        if (t === from || !rs.length) return;
        const wires = place.wiresAt(it.y, t);
        if (wires === undefined) return;
        const rung = { wires, k: it.k };
        const cost = length([...rs, rung], t);
        const gain = costs[from]! - restCost - (cost - costs[t]!);
        if (gain > 0 && (!best || gain > best.gain)) best = { t, gain, rung, cost };
      });
      if (!best) continue;
      const { t, rung, cost } = best;
      rungs[from] = rest;
      rungs[t]!.push(rung);
      costs[from] = restCost;
      costs[t] = cost;
      Object.assign(it, { t, rung });
      moved = true;
    }
    if (!moved) break;
  }
}
