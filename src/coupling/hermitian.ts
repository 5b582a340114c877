/**
 * Small dense Hermitian linear algebra for reduced density matrices (2×2 and 4×4).
 *
 * A complex Hermitian n×n matrix H = A + iB is handled through its real symmetric
 * embedding E(H) = [[A, −B], [B, A]] (2n×2n). E is a *-homomorphism: E(HK) = E(H)E(K),
 * E(f(H)) = f(E(H)) for Hermitian H, and every eigenvalue of H appears twice in E(H).
 * So one robust routine — cyclic Jacobi for real symmetric matrices — gives eigenvalues,
 * square roots and products without any complex eigen-solver.
 */

/** A complex square matrix, row-major, split into real and imaginary parts. */
export interface ComplexMatrix {
  readonly n: number;
  readonly re: Float64Array;
  readonly im: Float64Array;
}

export interface SymmetricEigen {
  /** Ascending. */
  readonly values: Float64Array;
  /** Column k (row-major `vectors[i*n+k]`) is the eigenvector of `values[k]`. */
  readonly vectors: Float64Array;
}

const MAX_SWEEPS = 64;

/**
 * Eigen-decomposition of a real symmetric n×n matrix (row-major) by the cyclic Jacobi
 * method. Jacobi is slow for big n but, for n ≤ 8, it is fast, needs no pivoting, and its
 * eigenvalues are accurate to a few ulps of the matrix norm — which is what the entropy and
 * concurrence computations need.
 */
export function symmetricEigen(matrix: Float64Array, n: number): SymmetricEigen {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;

  let norm2 = 0;
  for (let i = 0; i < n * n; i++) norm2 += (a[i] as number) ** 2;

  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += (a[p * n + q] as number) ** 2;
    // Relative threshold: off-diagonal mass below (ε·‖A‖)² cannot move any eigenvalue further.
    if (off <= 1e-34 * norm2 || off === 0) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q] as number;
        if (apq === 0) continue;
        const app = a[p * n + p] as number;
        const aqq = a[q * n + q] as number;
        const theta = (aqq - app) / (2 * apq);
        // t = tan(φ), the smaller root, so the rotation angle is at most π/4 (stable).
        const t = Math.abs(theta) > 1e150 ? 1 / (2 * theta) : Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        // A ← Jᵀ A J, J the rotation in the (p, q) plane.
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p] as number;
          const akq = a[k * n + q] as number;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k] as number;
          const aqk = a[q * n + k] as number;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        a[p * n + q] = 0;
        a[q * n + p] = 0;
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p] as number;
          const vkq = v[k * n + q] as number;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }

  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => (a[x * n + x] as number) - (a[y * n + y] as number));
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = a[src * n + src] as number;
    for (let k = 0; k < n; k++) vectors[k * n + dst] = v[k * n + src] as number;
  });
  return { values, vectors };
}

/** E(H) = [[Re, −Im], [Im, Re]], 2n×2n row-major. */
export function realEmbedding(h: ComplexMatrix): Float64Array {
  const { n } = h;
  const m = 2 * n;
  const e = new Float64Array(m * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const r = h.re[i * n + j] as number;
      const im = h.im[i * n + j] as number;
      e[i * m + j] = r;
      e[(i + n) * m + (j + n)] = r;
      e[i * m + (j + n)] = -im;
      e[(i + n) * m + j] = im;
    }
  }
  return e;
}

/** Eigenvalues (ascending) of a Hermitian matrix, from its real embedding (each appears twice there). */
export function hermitianEigenvalues(h: ComplexMatrix): Float64Array {
  const { values } = symmetricEigen(symmetrize(realEmbedding(h), 2 * h.n), 2 * h.n);
  const out = new Float64Array(h.n);
  for (let k = 0; k < h.n; k++) out[k] = ((values[2 * k] as number) + (values[2 * k + 1] as number)) / 2;
  return out;
}

/** Real m×m product. */
export function matMul(x: Float64Array, y: Float64Array, m: number): Float64Array {
  const out = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let k = 0; k < m; k++) {
      const xik = x[i * m + k] as number;
      if (xik === 0) continue;
      for (let j = 0; j < m; j++) out[i * m + j] = (out[i * m + j] as number) + xik * (y[k * m + j] as number);
    }
  }
  return out;
}

/** (S + Sᵀ)/2: removes the rounding asymmetry products leave behind before Jacobi. */
export function symmetrize(s: Float64Array, m: number): Float64Array {
  const out = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) out[i * m + j] = ((s[i * m + j] as number) + (s[j * m + i] as number)) / 2;
  return out;
}

/** Square root of a real symmetric positive semi-definite matrix; negative rounding noise is clamped to 0. */
export function psdSqrt(s: Float64Array, m: number): Float64Array {
  const { values, vectors } = symmetricEigen(s, m);
  const out = new Float64Array(m * m);
  for (let k = 0; k < m; k++) {
    const r = Math.sqrt(Math.max(0, values[k] as number));
    if (r === 0) continue;
    for (let i = 0; i < m; i++) {
      const vik = (vectors[i * m + k] as number) * r;
      if (vik === 0) continue;
      for (let j = 0; j < m; j++) out[i * m + j] = (out[i * m + j] as number) + vik * (vectors[j * m + k] as number);
    }
  }
  return out;
}
