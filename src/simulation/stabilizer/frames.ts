/**
 * The bit-parallel Pauli-frame sampler (as Stim): every shot is the reference sample times a Pauli
 * frame, one x and one z bit per qubit and shot, packed 32 shots per word. Clifford gates move the
 * frames (signs do not matter for a frame); a measurement reports reference ⊕ x and then randomises
 * z (a Z frame on a Z eigenstate is a stabilizer, and it carries the randomness of later
 * measurements); noise multiplies random Paulis into the frames.
 */
import type { SeededRng } from '../rng.js';
import { P_CX, P_CZ, P_H, P_S, P_SDG, P_SWAP, P_X, P_Y, P_Z, type Prim } from './clifford-gates.js';
import type { PauliChannel } from './stabilizer-program.js';
import { wordsFor } from './bits.js';

/** Calls fn(i) for each i in [0, count) independently with probability p (geometric skipping). */
export function forHits(count: number, p: number, rng: SeededRng, fn: (i: number) => void): void {
  if (!(p > 0)) return;
  if (p >= 1) {
    for (let i = 0; i < count; i++) fn(i);
    return;
  }
  const logq = Math.log1p(-p);
  let pos = -1;
  for (;;) {
    pos += Math.floor(Math.log(1 - rng.next()) / logq) + 1;
    if (pos >= count) return;
    fn(pos);
  }
}

export class Frames {
  /** Words per qubit (shots / 32). */
  readonly s: number;
  readonly x: Uint32Array;
  readonly z: Uint32Array;

  constructor(
    readonly n: number,
    readonly shots: number,
    private readonly rng: SeededRng,
  ) {
    this.s = wordsFor(shots);
    this.x = new Uint32Array(n * this.s);
    this.z = new Uint32Array(n * this.s);
    for (let q = 0; q < n; q++) this.randomZ(q);
  }

  randomZ(q: number): void {
    const o = q * this.s;
    for (let j = 0; j < this.s; j++) this.z[o + j] = this.rng.nextU32();
  }

  gate(p: Prim): void {
    const { s, x, z } = this;
    const oa = p.a * s;
    switch (p.g) {
      case P_H:
        for (let j = 0; j < s; j++) {
          const t = x[oa + j]!;
          x[oa + j] = z[oa + j]!;
          z[oa + j] = t;
        }
        return;
      case P_S:
      case P_SDG:
        for (let j = 0; j < s; j++) z[oa + j]! ^= x[oa + j]!;
        return;
      case P_X:
      case P_Y:
      case P_Z:
        return;
      case P_CX: {
        const ob = p.b * s;
        for (let j = 0; j < s; j++) {
          x[ob + j]! ^= x[oa + j]!;
          z[oa + j]! ^= z[ob + j]!;
        }
        return;
      }
      case P_CZ: {
        const ob = p.b * s;
        for (let j = 0; j < s; j++) {
          z[oa + j]! ^= x[ob + j]!;
          z[ob + j]! ^= x[oa + j]!;
        }
        return;
      }
      case P_SWAP: {
        const ob = p.b * s;
        for (let j = 0; j < s; j++) {
          let t = x[oa + j]!;
          x[oa + j] = x[ob + j]!;
          x[ob + j] = t;
          t = z[oa + j]!;
          z[oa + j] = z[ob + j]!;
          z[ob + j] = t;
        }
        return;
      }
    }
  }

  /** A Pauli applied in the shots of `mask` (a conditioned Pauli whose condition differs from the reference's). */
  flip(p: Prim, mask: Uint32Array): void {
    const o = p.a * this.s;
    if (p.g === P_X || p.g === P_Y) for (let j = 0; j < this.s; j++) this.x[o + j]! ^= mask[j]!;
    if (p.g === P_Z || p.g === P_Y) for (let j = 0; j < this.s; j++) this.z[o + j]! ^= mask[j]!;
  }

  private flipBit(arr: Uint32Array, q: number, shot: number): void {
    arr[q * this.s + (shot >>> 5)]! ^= 1 << (shot & 31);
  }

  /** A Pauli channel, in every shot or only in those of `only`. */
  noise(ch: PauliChannel, only?: Uint32Array): void {
    const inMask = (i: number): boolean => only === undefined || (only[i >>> 5]! & (1 << (i & 31))) !== 0;
    if (ch.b < 0) {
      const total = ch.px + ch.py + ch.pz;
      forHits(this.shots, total, this.rng, (i) => {
        if (!inMask(i)) return;
        const u = this.rng.next() * total;
        const kind = u < ch.px ? 1 : u < ch.px + ch.py ? 3 : 2; // bit 0: x, bit 1: z
        if (kind & 1) this.flipBit(this.x, ch.a, i);
        if (kind & 2) this.flipBit(this.z, ch.a, i);
      });
      return;
    }
    forHits(this.shots, ch.p2, this.rng, (i) => {
      if (!inMask(i)) return;
      const v = 1 + this.rng.int(15); // one of the 15 non-identity two-qubit Paulis
      if (v & 1) this.flipBit(this.x, ch.a, i);
      if (v & 2) this.flipBit(this.z, ch.a, i);
      if (v & 4) this.flipBit(this.x, ch.b, i);
      if (v & 8) this.flipBit(this.z, ch.b, i);
    });
  }

  /** Measured bits of qubit q in every shot (reference ⊕ x, then readout flips); z is randomised. */
  measure(q: number, refBit: number, ro: readonly [number, number] | null, out: Uint32Array, outOffset: number): void {
    const { s, x } = this;
    const o = q * s;
    const inv = refBit === 1 ? 0xffffffff : 0;
    for (let j = 0; j < s; j++) out[outOffset + j] = x[o + j]! ^ inv;
    if (ro !== null) {
      const flips: number[] = [];
      const bitAt = (i: number): number => (out[outOffset + (i >>> 5)]! >>> (i & 31)) & 1;
      forHits(this.shots, ro[0], this.rng, (i) => {
        if (bitAt(i) === 0) flips.push(i);
      });
      forHits(this.shots, ro[1], this.rng, (i) => {
        if (bitAt(i) === 1) flips.push(i);
      });
      for (const i of flips) out[outOffset + (i >>> 5)]! ^= 1 << (i & 31);
    }
    this.randomZ(q);
  }

  reset(q: number): void {
    this.x.fill(0, q * this.s, (q + 1) * this.s);
    this.randomZ(q);
  }
}
