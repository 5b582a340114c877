/**
 * The truncated split of a two-site matrix θ (m×n, m ≤ n) as θ ≈ U·R: U's k columns are the leading
 * eigenvectors of the Gram matrix θθ† (its eigenvalues are the squared Schmidt coefficients) and
 * R = U†θ. U is orthonormal to machine precision whatever the spectrum (degenerate or tiny values
 * included), so the kept state is the orthogonal projection UU†θ: the discarded weight is measured
 * exactly as ‖θ‖² − ‖R‖², not inferred from eigenvalues, and the fidelity bound stays a bound even
 * though small eigenvalues of a Gram matrix carry only absolute accuracy (see
 * docs/decisions/simulation-mps-svd.md).
 */
import { adjointTimes, gramLower } from './complex-kernels.js';
import { hermitianEigen } from './hermitian-eigen.js';

export interface Truncation {
  readonly maxBond: number;
  /** Discard the smallest Schmidt coefficients while their total weight stays at most this. */
  readonly threshold: number;
}

/**
 * Eigenvalues of θθ† below this fraction of the largest are rounding noise (the Gram matrix has
 * absolute accuracy ≈ ε‖θ‖²): dropped, their weight still counted through ‖θ‖² − ‖R‖².
 */
const ZERO_EIG = 1e-13;

export interface Split {
  readonly k: number;
  /** m×k row-major, orthonormal columns. */
  readonly ure: Float64Array;
  readonly uim: Float64Array;
  /** k×n row-major, rescaled so ‖R‖ = ‖θ‖ (the truncated state renormalised). */
  readonly rre: Float64Array;
  readonly rim: Float64Array;
  /** ‖U†θ‖² before rescaling and ‖θ‖². */
  readonly kept: number;
  readonly total: number;
}

export function gramSplit(m: number, n: number, tr: Float64Array, ti: Float64Array, t: Truncation): Split {
  // G = θθ†, lower triangle.
  const gr = new Float64Array(m * m);
  const gi = new Float64Array(m * m);
  const total = gramLower(m, n, tr, ti, gr, gi);
  const want = Math.min(m, Number.isFinite(t.maxBond) ? Math.max(1, t.maxBond) : m);
  let k = 0;
  // Only the kept eigenvectors are computed: k is chosen from the eigenvalues first.
  const eig = hermitianEigen(m, gr, gi, want, (lam) => {
    const l0 = lam[0] ?? 0;
    while (k < want && lam[k]! > ZERO_EIG * l0) k++;
    k = Math.max(1, k);
    if (t.threshold > 0 && total > 0) {
      let tail = total;
      for (let j = 0; j < k; j++) tail -= lam[j]!;
      while (k > 1 && tail + lam[k - 1]! <= t.threshold * total) {
        tail += lam[k - 1]!;
        k--;
      }
    }
    return k;
  });
  const ure = eig.re;
  const uim = eig.im;
  // R = U†θ.
  const rre = new Float64Array(k * n);
  const rim = new Float64Array(k * n);
  adjointTimes(m, k, n, ure, uim, tr, ti, rre, rim);
  let kept = 0;
  for (let e = 0; e < k * n; e++) kept += rre[e]! ** 2 + rim[e]! ** 2;
  const scale = kept > 0 ? Math.sqrt(total / kept) : 1;
  if (scale !== 1)
    for (let e = 0; e < k * n; e++) {
      rre[e]! *= scale;
      rim[e]! *= scale;
    }
  return { k, ure, uim, rre, rim, kept, total };
}

/** The conjugate transpose of an r×c row-major matrix (c×r). */
export function adjoint(r: number, c: number, re: Float64Array, im: Float64Array): { re: Float64Array; im: Float64Array } {
  const or = new Float64Array(c * r);
  const oi = new Float64Array(c * r);
  for (let i = 0; i < r; i++)
    for (let j = 0; j < c; j++) {
      or[j * r + i] = re[i * c + j]!;
      oi[j * r + i] = -im[i * c + j]!;
    }
  return { re: or, im: oi };
}
