/**
 * Expectation values of Pauli-sum observables H = Σ coeff·P. A Pauli string follows Qiskit:
 * its RIGHTMOST character acts on qubit 0 ("ZZI" is Z on qubits 2 and 1, I on qubit 0), and it
 * has exactly one character per qubit. Exact from a state vector; estimated from counts
 * (Z/I strings only: the shots measured in the computational basis) with a standard error.
 */

export interface PauliTerm {
  readonly pauli: string;
  readonly coeff: number;
}

export interface Expectation {
  /** ⟨H⟩. */
  readonly value: number;
  /** ⟨coeff·P⟩ of each term, in order. */
  readonly terms: readonly number[];
  readonly kind: 'exact' | 'estimated';
  /** Standard error of an estimate (absent for exact values). */
  readonly stderr?: number;
}

/** Masks of one Pauli string: x bits (X, Y), z bits (Z, Y), and the number of Ys. */
function masks(pauli: string): { x: number; z: number; ny: number } {
  let x = 0;
  let z = 0;
  let ny = 0;
  const n = pauli.length;
  for (let k = 0; k < n; k++) {
    const ch = pauli[n - 1 - k];
    const bit = 2 ** k;
    if (ch === 'X' || ch === 'Y') x += bit;
    if (ch === 'Z' || ch === 'Y') z += bit;
    if (ch === 'Y') ny++;
  }
  return { x, z, ny };
}

function parity(v: number): number {
  let p = 0;
  let u = v;
  while (u !== 0) {
    p ^= u & 1;
    u = Math.floor(u / 2);
  }
  return p;
}

/** Parity of the bits of i and mask (both below 2^31 here: at most 30 qubits). */
const parityAnd = (i: number, mask: number): number => parity(i & mask);

/**
 * ⟨ψ|P|ψ⟩ with P|i⟩ = i^ny · (−1)^{popcount(i & z)} |i ⊕ x⟩ (Y = i·X·Z), so
 * ⟨ψ|P|ψ⟩ = Σ_i conj(ψ[i⊕x]) · i^ny · (−1)^{…} · ψ[i]; the imaginary part vanishes for a Hermitian P.
 */
export function pauliExpectation(re: Float64Array, im: Float64Array, pauli: string): number {
  const { x, z, ny } = masks(pauli);
  let sr = 0;
  let si = 0;
  const dim = re.length;
  for (let i = 0; i < dim; i++) {
    const j = i ^ x;
    const sign = parityAnd(i, z) === 1 ? -1 : 1;
    // conj(ψ_j)·ψ_i
    const ar = re[j]! * re[i]! + im[j]! * im[i]!;
    const ai = re[j]! * im[i]! - im[j]! * re[i]!;
    sr += sign * ar;
    si += sign * ai;
  }
  // Multiply by i^ny and keep the real part.
  switch (ny % 4) {
    case 0:
      return sr;
    case 1:
      return -si;
    case 2:
      return -sr;
    default:
      return si;
  }
}

export function exactExpectation(re: Float64Array, im: Float64Array, terms: readonly PauliTerm[]): Expectation {
  const values = terms.map((t) => t.coeff * pauliExpectation(re, im, t.pauli));
  return { value: values.reduce((a, b) => a + b, 0), terms: values, kind: 'exact' };
}

/**
 * ⟨H⟩ estimated from counts of a Z-basis measurement: each shot's H is Σ coeff·Π(−1)^{bit};
 * the estimate is the mean over shots, its standard error the sample deviation / √shots.
 * `clbitOf[q]` is the clbit measuring qubit q (−1: not measured: the caller refuses that first).
 * Count keys are plain clbit strings (clbit 0 rightmost), without register spaces.
 */
export function estimatedExpectation(counts: Readonly<Record<string, number>>, terms: readonly PauliTerm[], clbitOf: readonly number[]): Expectation {
  let shots = 0;
  let sum = 0;
  let sumSq = 0;
  const termSums = terms.map(() => 0);
  for (const [key, c] of Object.entries(counts)) {
    const bits = key.replace(/ /g, '');
    const bitOf = (clbit: number): number => (bits[bits.length - 1 - clbit] === '1' ? 1 : 0);
    let h = 0;
    terms.forEach((t, k) => {
      let sign = 1;
      const n = t.pauli.length;
      for (let q = 0; q < n; q++) if (t.pauli[n - 1 - q] === 'Z' && bitOf(clbitOf[q]!) === 1) sign = -sign;
      h += t.coeff * sign;
      termSums[k]! += c * t.coeff * sign;
    });
    shots += c;
    sum += c * h;
    sumSq += c * h * h;
  }
  if (shots === 0) return { value: 0, terms: terms.map(() => 0), kind: 'estimated', stderr: 0 };
  const mean = sum / shots;
  const variance = shots > 1 ? Math.max(0, (sumSq - shots * mean * mean) / (shots - 1)) : 0;
  return { value: mean, terms: termSums.map((s) => s / shots), kind: 'estimated', stderr: Math.sqrt(variance / shots) };
}
