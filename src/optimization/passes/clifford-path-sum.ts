/**
 * The optimizer's own path sum of a circuit (M. Amy, QPL 2018), shaped for phase
 * teleportation: |x⟩ ↦ Σ_y e^{2πi·P(x,y)} |…⟩ where P is Clifford — Σ_v (L_v/4)·v + Σ_{u~w}
 * (1/2)·u·w, linear coefficients in Z/4 and a graph of half-turn couplings (a graph state, as
 * in a graph-like ZX diagram) — except for one symbolic term θ_k·g_k per non-Clifford phase
 * gate. Each such gate is a *gadget*: a leaf variable g carrying θ·g, coupled only to a hub
 * variable h, which is coupled to the parity f the gate sees: Σ_{h,g} (−1)^{h(g ⊕ f)} e^{iθg}
 * = 2·e^{iθf}. Legs of gadgets are then ordinary variables that the rules may sum out.
 *
 * Rules (each an identity of sums that holds whatever the θ_k are; y is a Hadamard's
 * variable, not a hub or leaf, not pinned — pinned are outputs and inputs of opaque gates):
 *  - ω (L_y odd, a local complementation): Σ_y i^{L·y}(−1)^{y·⊕N(y)} adds (−L_y/4)·⊕N(y);
 *  - HH (L_y even, a pivot): Σ_y (−1)^{y(⊕N(y) ⊕ L_y/2)} forces a neighbouring Hadamard
 *    variable y' := ⊕(N(y)∖y') ⊕ L_y/2, substituted everywhere;
 *  - Elim (y occurs nowhere): a constant factor.
 * Gadget fusion (Kissinger & van de Wetering 2020): two gadgets whose hubs are unpinned, have
 * even L and the same neighbours besides their leaves force g₁ = S ⊕ c₁ and g₂ = S ⊕ c₂, so the
 * circuit depends on θ₁, θ₂ only through θ₁ ± θ₂: one gadget takes the sum, the other goes. A
 * hub with no other neighbour is a global phase. A gadget whose angle becomes Clifford joins
 * the structural phase, which may let the rules go further. This module only analyses and
 * reports which gates fuse; proofs are the checker's.
 */

import { TELEPORT_TRACE as TRACE } from '../../verification/certificate-types.js';
import { addAngles, quarterTurns } from '../../verification/numeric-policy.js';
import { xorSorted } from './parity-bits.js';

/** An affine parity over F₂: XOR of the variables in `vs` (ascending, distinct), XOR `c`. */
export interface Affine {
  vs: readonly number[];
  c: boolean;
}

const one = (v: number): Affine => ({ vs: [v], c: false });

/** free: an input or an opaque gate's output (never summed); sum: a Hadamard's variable. */
type Kind = 'free' | 'sum' | 'hub' | 'leaf';

/**
 * One gadget: the phase its leaf carries is Σ sign·angle over its member gates plus `quarters`
 * quarter turns, Clifford phases of the skeleton absorbed when the gadget was rebuilt (exact).
 */
interface Gadget {
  hub: number;
  leaf: number;
  quarters: number;
  members: { gate: number; sign: 1 | -1 }[];
  /** Acts on nothing: a global phase, so its gates may all go. */
  free: boolean;
  /** Settled as a Clifford phase of this many quarter turns. */
  settled?: number;
}

/** A group of fused gates as teleport() reports it (gate numbers in track() order). */
export interface FusedGroup {
  readonly members: readonly { readonly gate: number; readonly sign: 1 | -1 }[];
  readonly quarters: number;
  readonly free: boolean;
  readonly settled?: number;
}

export class CliffordPathSum {
  private readonly kind: Kind[] = [];
  private readonly alive: boolean[] = [];
  /** Structural linear coefficients, quarter turns mod 4. */
  private readonly lin: number[] = [];
  /** Structural half-turn couplings u·w. */
  private readonly adj: Set<number>[] = [];
  private readonly wires: Affine[] = [];
  private readonly gadgets: Gadget[] = [];
  /** Fused groups whose angle became Clifford (or a global phase): no longer gadgets. */
  private readonly settled: Gadget[] = [];
  /** The tracked gates' angles, by gate number. */
  private readonly angles: number[] = [];
  /** The rules applied, in order, as the certificate's witness (see TELEPORT_TRACE in certificate-types.ts). */
  readonly trace: number[][] = [];

  constructor(numQubits: number) {
    for (let q = 0; q < numQubits; q++) this.wires.push(one(this.newVar('free')));
  }

  private newVar(kind: Kind): number {
    const v = this.kind.length;
    this.kind.push(kind);
    this.alive.push(true);
    this.lin.push(0);
    this.adj.push(new Set());
    return v;
  }

  private toggleEdge(u: number, w: number): void {
    if (u === w) {
      this.lin[u] = (this.lin[u]! + 2) % 4; // (1/2)·u·u = (1/2)·u
      return;
    }
    const a = this.adj[u]!;
    if (a.has(w)) {
      a.delete(w);
      this.adj[w]!.delete(u);
    } else {
      a.add(w);
      this.adj[w]!.add(u);
    }
  }

  /** Adds (k/4)·[a] to the structural phase, [a] ∈ {0,1}: ⊕v = Σv − 2Σ_{u<w} uw (mod 4). */
  private addQuarter(k: number, a: Affine): void {
    let kk = ((k % 4) + 4) % 4;
    if (a.c) kk = (4 - kk) % 4; // (k/4)(1 − g): the constant is a global phase
    if (kk === 0) return;
    const vs = a.vs;
    for (const v of vs) this.lin[v] = (this.lin[v]! + kk) % 4;
    if (kk % 2 === 1) for (let i = 0; i < vs.length; i++) for (let j = i + 1; j < vs.length; j++) this.toggleEdge(vs[i]!, vs[j]!);
  }

  /** Adds (1/2)·[a]·[b]: over F₂, a·b = AB ⊕ c_a·B ⊕ c_b·A (⊕ a constant). */
  private addHalfProduct(a: Affine, b: Affine): void {
    const as = a.vs;
    const bs = b.vs;
    for (const u of as) for (const w of bs) this.toggleEdge(u, w);
    if (a.c) for (const w of bs) this.lin[w] = (this.lin[w]! + 2) % 4;
    if (b.c) for (const u of as) this.lin[u] = (this.lin[u]! + 2) % 4;
  }

  hadamard(q: number): void {
    const v = one(this.newVar('sum'));
    this.addHalfProduct(this.wires[q]!, v);
    this.wires[q] = v;
  }

  cnot(c: number, t: number): void {
    const a = this.wires[c]!;
    const b = this.wires[t]!;
    this.wires[t] = { vs: xorSorted(a.vs, b.vs), c: a.c !== b.c };
  }

  not(q: number): void {
    const a = this.wires[q]!;
    this.wires[q] = { vs: a.vs, c: !a.c };
  }

  swap(p: number, q: number): void {
    const a = this.wires[p]!;
    this.wires[p] = this.wires[q]!;
    this.wires[q] = a;
  }

  cz(p: number, q: number): void {
    this.addHalfProduct(this.wires[p]!, this.wires[q]!);
  }

  /** A Clifford phase gate diag(1, i^k). */
  quarter(q: number, k: number): void {
    this.addQuarter(k, this.wires[q]!);
  }

  /** A non-Clifford phase gate diag(1, e^{iθ}) on q; returns its gate number (0, 1, … in call order). */
  track(q: number, angle: number): number {
    const hub = this.newVar('hub');
    const leaf = this.newVar('leaf');
    this.toggleEdge(hub, leaf);
    this.addHalfProduct(one(hub), this.wires[q]!);
    const gate = this.angles.length;
    this.angles.push(angle);
    this.gadgets.push({ hub, leaf, quarters: 0, members: [{ gate, sign: 1 }], free: false });
    return gate;
  }

  /**
   * Ends wire q at a free variable that nothing sums or substitutes, through H·H = I (as a
   * ZX diagram connects each boundary to one spider): the wire's parity, however wide, stays
   * reducible instead of blocking every variable in it.
   */
  private close(q: number): void {
    const z1 = this.newVar('sum');
    const z2 = this.newVar('free');
    this.addHalfProduct(this.wires[q]!, one(z1));
    this.toggleEdge(z1, z2);
  }

  /** Any other operation on q: its input is a free variable, and so is its output. */
  opaque(q: number): void {
    this.close(q);
    this.wires[q] = one(this.newVar('free'));
  }

  /** Substitutes v := g (an affine parity without v) in the structural phase (v is nowhere else). */
  private substitute(v: number, g: Affine): void {
    const k = this.lin[v]!;
    const nbrs = [...this.adj[v]!];
    this.detach(v);
    this.addQuarter(k, g);
    for (const w of nbrs) this.addHalfProduct(g, one(w));
  }

  private detach(v: number): void {
    for (const w of this.adj[v]!) this.adj[w]!.delete(v);
    this.adj[v]!.clear();
    this.lin[v] = 0;
    this.alive[v] = false;
  }

  /** Applies ω and HH (and Elim) until none applies; returns how many applied. */
  private reduce(stopped: () => boolean): number {
    let applied = 0;
    for (;;) {
      // rebuilt gadgets may feed the rules again: bounded, as the analysis is sound wherever it stops
      if (applied > 8 * this.kind.length + 1000) return applied;
      let changed = false;
      for (let y = 0; y < this.kind.length; y++) {
        if (!this.alive[y] || this.kind[y] !== 'sum') continue;
        if (stopped()) return applied;
        const nbrs = [...this.adj[y]!];
        const L = this.lin[y]!;
        if (L % 2 === 1) {
          this.trace.push([TRACE.omega, y]);
          this.detach(y);
          this.addQuarter(4 - L, { vs: nbrs, c: false });
        } else {
          let pick = -1;
          for (const w of nbrs) if (this.kind[w] === 'sum' && (pick < 0 || this.adj[w]!.size < this.adj[pick]!.size)) pick = w;
          // no partner; and (−1)^y alone would sum to 0, impossible in a unitary
          if (pick < 0 && (nbrs.length > 0 || L === 2)) continue;
          this.trace.push(pick >= 0 ? [TRACE.pivot, y, pick] : [TRACE.elim, y]);
          this.detach(y);
          if (pick >= 0) {
            this.substitute(pick, { vs: nbrs.filter((w) => w !== pick), c: L === 2 });
          }
        }
        applied++;
        changed = true;
      }
      // a hub made proper Clifford (odd L) by the rules above is summed out by ω too; its
      // leaf, now coupled to the hub's neighbours, becomes an ordinary variable with a new gadget
      for (const gd of this.gadgets) {
        const h = gd.hub;
        const L = this.lin[h]!;
        if (L % 2 === 0) continue;
        this.trace.push([TRACE.rebuild, h]);
        const nbrs = [...this.adj[h]!];
        this.detach(h);
        this.addQuarter(4 - L, { vs: nbrs, c: false });
        // the leaf is now an ordinary variable: its Clifford phase joins the gadget's angle
        gd.quarters = (gd.quarters + this.lin[gd.leaf]!) % 4;
        this.lin[gd.leaf] = 0;
        this.kind[gd.leaf] = 'sum';
        const hub = this.newVar('hub');
        const leaf = this.newVar('leaf');
        this.toggleEdge(hub, leaf);
        this.toggleEdge(hub, gd.leaf);
        gd.hub = hub;
        gd.leaf = leaf;
        applied++;
        changed = true;
      }
      if (!changed) return applied;
    }
  }

  /** Fuses gadgets with equal parities; returns how many fusions (or removals) happened. */
  private fuse(): number {
    const byKey = new Map<string, Gadget>();
    const keep: Gadget[] = [];
    let fused = 0;
    for (const gd of this.gadgets) {
      const h = gd.hub;
      if (this.lin[h]! % 2 === 1) {
        keep.push(gd);
        continue;
      }
      const key = this.keyOf(gd);
      if (key === '') {
        // acts on nothing: a global phase, so every member can go
        this.trace.push([TRACE.settle, h]);
        this.detach(h);
        this.detach(gd.leaf);
        gd.free = true;
        this.settled.push(gd);
        fused++;
        continue;
      }
      const other = byKey.get(key);
      // a hub detached since `other` was keyed may have been its neighbour: compare afresh
      if (!other || this.keyOf(other) !== key) {
        byKey.set(key, gd);
        keep.push(gd);
        continue;
      }
      // θ₂·(S ⊕ c₂) = ±θ₂·(S ⊕ c₁) + const
      this.trace.push([TRACE.fuse, other.hub, h]);
      const s: 1 | -1 = this.lin[other.hub] === this.lin[h] ? 1 : -1;
      other.quarters = (((other.quarters + s * gd.quarters) % 4) + 4) % 4;
      for (const m of gd.members) other.members.push({ gate: m.gate, sign: (m.sign * s) as 1 | -1 });
      this.detach(h);
      this.detach(gd.leaf);
      fused++;
    }
    this.gadgets.length = 0;
    for (const gd of keep) {
      // (the checker settles only hubs with an even coefficient)
      const k = gd.members.length > 1 && this.lin[gd.hub]! % 2 === 0 ? quarterTurns(this.groupAngle(gd)) : undefined;
      if (k !== undefined) this.settle(gd, k);
      else this.gadgets.push(gd);
    }
    return fused;
  }

  /** The gadget's phase: Σ sign·angle in member order, plus its quarter turns (summed as the checker sums it). */
  private groupAngle(gd: Gadget): number {
    let a = gd.quarters * (Math.PI / 2);
    for (const m of gd.members) a = addAngles(a, m.sign * this.angles[m.gate]!);
    return a;
  }

  /** The hub's neighbours besides the leaf: the parity the gadget acts on. */
  private keyOf(gd: Gadget): string {
    const legs: number[] = [];
    for (const w of this.adj[gd.hub]!) if (w !== gd.leaf) legs.push(w);
    return legs.sort((x, y) => x - y).join(',');
  }

  /** A fused gadget whose angle is k quarter turns: hub and leaf become ordinary Clifford variables. */
  private settle(gd: Gadget, k: number): void {
    this.trace.push([TRACE.settle, gd.hub]);
    this.kind[gd.hub] = 'sum';
    this.kind[gd.leaf] = 'sum';
    this.lin[gd.leaf] = (this.lin[gd.leaf]! + k) % 4;
    gd.settled = k;
    this.settled.push(gd);
  }

  /**
   * Reduces and fuses until nothing changes. Returns the groups of fused gates: in each, the
   * circuit depends on the members only through Σ sign·angle (nothing at all for a free group).
   */
  teleport(stopped: () => boolean = () => false): FusedGroup[] {
    for (let q = 0; q < this.wires.length; q++) this.close(q);
    for (;;) {
      this.reduce(stopped);
      if (stopped() || this.fuse() === 0) break;
    }
    return [...this.settled, ...this.gadgets.filter((g) => g.members.length > 1)];
  }
}
