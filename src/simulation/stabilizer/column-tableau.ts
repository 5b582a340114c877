/**
 * The inverse tableau transposed: one bit column per qubit, packed over the 2n rows, with the signs
 * packed the same way. Gates on the state rewrite rows (cheap in Tableau's row-major form), but a
 * random measurement conjugates every row by Cliffords on the input side; column-major those are
 * word-parallel over all rows at once (one column op per qubit touched, as Stim's measurement does),
 * where row-major they cost a pass over every row's words each. The reference sample of a circuit
 * whose measurements are terminal transposes once, after its gates.
 * Sign rules are Aaronson–Gottesman's for the (−1)^r i^{x·z} X^x Z^z form Tableau uses, so the
 * outcomes are exactly those Tableau.measure gives for the same choices.
 */
import { wordsFor } from './bits.js';
import type { Tableau } from './tableau.js';

export class ColumnTableau {
  readonly n: number;
  /** Words per column (2n rows). */
  readonly w: number;
  readonly x: Uint32Array;
  readonly z: Uint32Array;
  readonly r: Uint32Array;

  constructor(t: Tableau) {
    const n = t.n;
    this.n = n;
    const w = wordsFor(2 * n);
    this.w = w;
    this.x = new Uint32Array(n * w);
    this.z = new Uint32Array(n * w);
    this.r = new Uint32Array(w);
    const tw = t.w;
    for (let row = 0; row < 2 * n; row++) {
      const rw = row >>> 5;
      const rb = 1 << (row & 31);
      if (t.r[row] === 1) this.r[rw]! |= rb;
      const o = row * tw;
      for (let k = 0; k < tw; k++) {
        let vx = t.x[o + k]!;
        while (vx !== 0) {
          const q = k * 32 + (31 - Math.clz32(vx & -vx));
          vx &= vx - 1;
          this.x[q * w + rw]! |= rb;
        }
        let vz = t.z[o + k]!;
        while (vz !== 0) {
          const q = k * 32 + (31 - Math.clz32(vz & -vz));
          vz &= vz - 1;
          this.z[q * w + rw]! |= rb;
        }
      }
    }
  }

  /** Qubits whose column has `row` set in `arr`, ascending. */
  private rowSupport(arr: Uint32Array, row: number): number[] {
    const { n, w } = this;
    const rw = row >>> 5;
    const rb = 1 << (row & 31);
    const out: number[] = [];
    for (let q = 0; q < n; q++) if ((arr[q * w + rw]! & rb) !== 0) out.push(q);
    return out;
  }

  /** Every row conjugated by CX(c → t). */
  private cx(c: number, t: number): void {
    const { w, x, z, r } = this;
    const oc = c * w;
    const ot = t * w;
    for (let j = 0; j < w; j++) {
      const xc = x[oc + j]!;
      const zc = z[oc + j]!;
      const xt = x[ot + j]!;
      const zt = z[ot + j]!;
      r[j]! ^= xc & zt & ~(xt ^ zc);
      x[ot + j] = xt ^ xc;
      z[oc + j] = zc ^ zt;
    }
  }

  /** Every row conjugated by H on qubit q. */
  private h(q: number): void {
    const { w, x, z, r } = this;
    const o = q * w;
    for (let j = 0; j < w; j++) {
      const a = x[o + j]!;
      const b = z[o + j]!;
      r[j]! ^= a & b;
      x[o + j] = b;
      z[o + j] = a;
    }
  }

  /** Every row conjugated by S† on qubit q: X → −Y, Y → X. */
  private sdg(q: number): void {
    const { w, x, z, r } = this;
    const o = q * w;
    for (let j = 0; j < w; j++) {
      const a = x[o + j]!;
      const b = z[o + j]!;
      r[j]! ^= a & ~b;
      z[o + j] = b ^ a;
    }
  }

  /** Every row conjugated by X on qubit q: Z and Y there change sign. */
  private xGate(q: number): void {
    const { w, z, r } = this;
    const o = q * w;
    for (let j = 0; j < w; j++) r[j]! ^= z[o + j]!;
  }

  private sign(row: number): number {
    return (this.r[row >>> 5]! >>> (row & 31)) & 1;
  }

  /** Measures Z on qubit a, as Tableau.measure (the same collapse, so the same outcomes for the same choices). */
  measure(a: number, choose: () => number): { bit: number; random: boolean } {
    const row = this.n + a;
    const xs = this.rowSupport(this.x, row);
    if (xs.length === 0) return { bit: this.sign(row), random: false };
    const k = xs[0]!;
    for (let i = 1; i < xs.length; i++) this.cx(k, xs[i]!);
    const rw = row >>> 5;
    const rb = 1 << (row & 31);
    if ((this.z[k * this.w + rw]! & rb) !== 0) this.sdg(k);
    // CZ(k, j) as H_j CX(k → j) H_j for every other qubit j with a Z in the row.
    for (const j of this.rowSupport(this.z, row)) {
      if (j === k) continue;
      this.h(j);
      this.cx(k, j);
      this.h(j);
    }
    this.h(k);
    const bit = choose() & 1;
    if (this.sign(row) !== bit) this.xGate(k);
    return { bit, random: true };
  }
}
