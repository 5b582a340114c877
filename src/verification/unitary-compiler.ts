/**
 * Compiles a gate list into passes over a 2^n state for the unitary checker: runs of
 * monomial gates (permutation × phases: x, cx, ccx, swap, z, s, t, rz, cz, …) become one
 * precomputed pass; consecutive single-qubit gates on a qubit are multiplied into one
 * 2×2 first (they commute with everything on other qubits, so they wait until a
 * multi-qubit gate touches their qubit); everything else is a dense k-qubit pass.
 * Index convention: bit q of a state index is qubit q; a gate's local index has qubits[0]
 * as its most significant bit (gate-matrices.ts).
 */
import type { CMatrix } from './gate-matrices.js';
import { matMul } from './gate-matrices.js';

/** Matrix entries below this magnitude count as zero when deciding that a gate is monomial. */
const ZERO = 1e-14;

export interface MonomialStep {
  readonly kind: 'monomial';
  readonly perm: Int32Array;
  readonly pr: Float64Array;
  readonly pi: Float64Array;
}
export interface DenseStep {
  readonly kind: 'dense';
  readonly k: number;
  /** Base indices: every index with the gate's qubits cleared. */
  readonly bases: Int32Array;
  /** offsets[l]: the index bits of local basis state l (local bit k-1-j is qubit j). */
  readonly offsets: Int32Array;
  readonly m: CMatrix;
}
export type Step = MonomialStep | DenseStep;

/** Local index of global index s for the gate qubits (qubits[0] is the local MSB). */
function localIndex(s: number, qubits: readonly number[]): number {
  let l = 0;
  for (const q of qubits) l = (l << 1) | ((s >> q) & 1);
  return l;
}

function withLocal(s: number, qubits: readonly number[], l: number): number {
  const k = qubits.length;
  for (let j = 0; j < k; j++) {
    const bit = (l >> (k - 1 - j)) & 1;
    const q = qubits[j]!;
    s = (s & ~(1 << q)) | (bit << q);
  }
  return s;
}

/** For a monomial matrix: row of the single nonzero entry of each column, and its value. */
function monomialColumns(m: CMatrix): { rows: Int32Array; vr: Float64Array; vi: Float64Array } | undefined {
  const d = m.dim;
  const rows = new Int32Array(d);
  const vr = new Float64Array(d);
  const vi = new Float64Array(d);
  for (let c = 0; c < d; c++) {
    let found = -1;
    for (let r = 0; r < d; r++) {
      const re = m.re[r * d + c]!;
      const im = m.im[r * d + c]!;
      if (Math.abs(re) > ZERO || Math.abs(im) > ZERO) {
        if (found >= 0) return undefined;
        found = r;
        vr[c] = re;
        vi[c] = im;
      }
    }
    if (found < 0) return undefined;
    rows[c] = found;
  }
  return { rows, vr, vi };
}

export class Compiler {
  readonly steps: Step[] = [];
  private acc: { perm: Int32Array; pr: Float64Array; pi: Float64Array } | undefined;
  /** Product of the single-qubit gates seen on a qubit since a multi-qubit gate touched it. */
  private readonly pending = new Map<number, CMatrix>();
  constructor(private readonly n: number) {}

  /** Appends a gate (applied after everything added so far). */
  add(m: CMatrix, qubits: readonly number[]): void {
    if (qubits.length === 1) {
      const q = qubits[0]!;
      const prev = this.pending.get(q);
      this.pending.set(q, prev ? matMul(m, prev) : m);
      return;
    }
    for (const q of qubits) this.flushQubit(q);
    this.emit(m, qubits);
  }

  /** Emits everything pending; the steps are complete afterwards. */
  finish(): Step[] {
    for (const q of [...this.pending.keys()]) this.flushQubit(q);
    this.flushMonomial();
    return this.steps;
  }

  private flushQubit(q: number): void {
    const p = this.pending.get(q);
    if (!p) return;
    this.pending.delete(q);
    this.emit(p, [q]);
  }

  private emit(m: CMatrix, qubits: readonly number[]): void {
    const mono = monomialColumns(m);
    if (mono) {
      this.fuse(mono, qubits);
      return;
    }
    this.flushMonomial();
    const N = 1 << this.n;
    const k = qubits.length;
    let mask = 0;
    for (const q of qubits) mask |= 1 << q;
    const bases = new Int32Array(N >> k);
    let at = 0;
    for (let i = 0; i < N; i++) if ((i & mask) === 0) bases[at++] = i;
    const offsets = new Int32Array(1 << k);
    for (let l = 0; l < 1 << k; l++) offsets[l] = withLocal(0, qubits, l);
    this.steps.push({ kind: 'dense', k, bases, offsets, m });
  }

  private fuse(mono: { rows: Int32Array; vr: Float64Array; vi: Float64Array }, qubits: readonly number[]): void {
    const N = 1 << this.n;
    if (!this.acc) {
      const perm = new Int32Array(N);
      for (let i = 0; i < N; i++) perm[i] = i;
      this.acc = { perm, pr: new Float64Array(N).fill(1), pi: new Float64Array(N) };
    }
    const { perm, pr, pi } = this.acc;
    for (let i = 0; i < N; i++) {
      const s = perm[i]!;
      const l = localIndex(s, qubits);
      perm[i] = withLocal(s, qubits, mono.rows[l]!);
      const a = pr[i]!;
      const b = pi[i]!;
      const c = mono.vr[l]!;
      const d = mono.vi[l]!;
      pr[i] = a * c - b * d;
      pi[i] = a * d + b * c;
    }
  }

  private flushMonomial(): void {
    if (this.acc) this.steps.push({ kind: 'monomial', ...this.acc });
    this.acc = undefined;
  }
}
