import { concurrence, entropyBits, qubitEntropyBits } from './measures.js';
import { reducedStates, type Checkpoint, type Pair, type PureState } from './reduced-states.js';

/** Measured coupling of one pair, from the final pure state. */
export interface MeasuredPair {
  readonly qubits: Pair;
  /** Wootters concurrence in [0, 1]. */
  readonly concurrence: number;
  /** I(A:B) = S(A) + S(B) − S(AB), bits, in [0, 2]. */
  readonly mutual_information_bits: number;
  /** S(AB), bits, in [0, 2]. */
  readonly pair_entropy_bits: number;
}

export interface MeasuredCoupling {
  /** S(ρ_q) for every qubit, bits, in [0, 1]. Index = qubit. */
  readonly entropies_bits: readonly number[];
  readonly pairs: readonly MeasuredPair[];
}

/** Digits kept on the wire: the measures are accurate to ~1e-10 (concurrence ~1e-7, see docs/coupling.md). */
const DIGITS = 1e10;

export function tidy(x: number, lo: number, hi: number): number {
  const r = Math.round(x * DIGITS) / DIGITS;
  return Math.min(hi, Math.max(lo, r === 0 ? 0 : r));
}

/**
 * Entropies of every qubit and concurrence / mutual information of every pair in `pairs`
 * (distinct in-range qubits; validated by the caller). Pairs are answered in the order given,
 * each as [min, max].
 */
export async function measureCoupling(state: PureState, pairs: readonly Pair[], checkpoint: Checkpoint = () => undefined): Promise<MeasuredCoupling> {
  const rs = await reducedStates(state, pairs, checkpoint);
  const n = state.numQubits;
  const entropies = new Array<number>(n);
  for (let q = 0; q < n; q++) {
    const p1 = rs.singles.p1[q] as number;
    entropies[q] = qubitEntropyBits(1 - p1, p1, rs.singles.cRe[q] as number, rs.singles.cIm[q] as number);
  }
  const out: MeasuredPair[] = [];
  for (let k = 0; k < pairs.length; k++) {
    if (k % 64 === 0) await checkpoint();
    const [x, y] = pairs[k]!;
    const a = Math.min(x, y);
    const b = Math.max(x, y);
    const rho = rs.pairs[k]!;
    const sab = entropyBits(rho);
    const mi = (entropies[a] as number) + (entropies[b] as number) - sab;
    out.push({
      qubits: [a, b],
      concurrence: tidy(concurrence(rho), 0, 1),
      mutual_information_bits: tidy(mi, 0, 2),
      pair_entropy_bits: tidy(sab, 0, 2),
    });
  }
  return { entropies_bits: entropies.map((s) => tidy(s, 0, 1)), pairs: out };
}
