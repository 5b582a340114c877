/**
 * Eigenvectors of a real symmetric tridiagonal matrix for a few given eigenvalues, by inverse
 * iteration (the method of LAPACK's stein, written here from its description): O(n) per vector and
 * iteration instead of the O(n²) per eigenvalue that accumulating the QL rotations costs. The MPS split
 * keeps at most half of the Gram matrix's eigenvectors, so most of that accumulation was wasted.
 *
 * Eigenvalues closer than CLUSTER·‖T‖ form a cluster: their vectors are orthogonalised against the
 * cluster's earlier ones after every solve, and equal eigenvalues get shifts nudged apart, so a
 * degenerate eigenspace comes out as an orthonormal basis of it. A last Gram–Schmidt pass over all the
 * vectors makes them orthonormal to machine precision (the split measures the discarded weight through
 * that orthonormality).
 */

const CLUSTER = 1e-3;
const ITERATIONS = 3;

/**
 * Column j of the result (n×k column-major, column j at j·n) is a unit eigenvector of the tridiagonal
 * (d diagonal, e[i] between i and i+1) for lambda[j]; lambda descending.
 */
export function tridiagonalVectors(n: number, d: Float64Array, e: Float64Array, lambda: Float64Array, k: number): Float64Array {
  const z = new Float64Array(n * k);
  let norm = 0;
  for (let i = 0; i < n; i++) norm = Math.max(norm, Math.abs(d[i]!) + (i > 0 ? Math.abs(e[i - 1]!) : 0) + (i + 1 < n ? Math.abs(e[i]!) : 0));
  if (!(norm > 0)) {
    for (let j = 0; j < k; j++) z[j * n + j] = 1;
    return z;
  }
  const tiny = Number.EPSILON * norm;
  const pert = 10 * tiny;
  const dl = new Float64Array(n);
  const dd = new Float64Array(n);
  const du = new Float64Array(n);
  const du2 = new Float64Array(n);
  const swap = new Uint8Array(n);
  const b = new Float64Array(n);
  let seed = 0x2545f491;
  let cluster = 0;
  let sigma = 0;
  for (let j = 0; j < k; j++) {
    if (j === 0 || lambda[j - 1]! - lambda[j]! > CLUSTER * norm) {
      cluster = j;
      sigma = lambda[j]!;
    } else sigma = Math.min(lambda[j]!, sigma - pert); // equal shifts would give equal vectors
    factor(n, d, e, sigma, tiny, dl, dd, du, du2, swap);
    for (let i = 0; i < n; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      b[i] = seed / 2147483648 - 1;
    }
    for (let it = 0; it < ITERATIONS; it++) {
      solve(n, dl, dd, du, du2, swap, b);
      orthogonalise(n, z, cluster, j, b);
      normalise(n, b);
    }
    z.set(b, j * n);
  }
  // One classical Gram–Schmidt pass: vectors of different clusters are already orthogonal to about
  // ε/CLUSTER, this takes them (and any cluster member) to machine precision.
  for (let j = 1; j < k; j++) {
    b.set(z.subarray(j * n, j * n + n));
    orthogonalise(n, z, 0, j, b);
    normalise(n, b);
    z.set(b, j * n);
  }
  return z;
}

/** Subtracts from b its projections on columns from..to−1 of z (modified Gram–Schmidt). */
function orthogonalise(n: number, z: Float64Array, from: number, to: number, b: Float64Array): void {
  for (let c = from; c < to; c++) {
    const o = c * n;
    let s = 0;
    for (let i = 0; i < n; i++) s += z[o + i]! * b[i]!;
    for (let i = 0; i < n; i++) b[i]! -= s * z[o + i]!;
  }
}

function normalise(n: number, b: Float64Array): void {
  let s = 0;
  for (let i = 0; i < n; i++) s += b[i]! * b[i]!;
  if (!(s > 0)) {
    // Everything was projected away (cannot happen while fewer than n vectors exist): restart on a unit vector.
    b.fill(0);
    b[0] = 1;
    return;
  }
  const f = 1 / Math.sqrt(s);
  for (let i = 0; i < n; i++) b[i]! *= f;
}

/** LU of T − σI with partial pivoting (U has two superdiagonals); pivots below `tiny` are raised to it. */
function factor(n: number, d: Float64Array, e: Float64Array, sigma: number, tiny: number, dl: Float64Array, dd: Float64Array, du: Float64Array, du2: Float64Array, swap: Uint8Array): void {
  for (let i = 0; i < n; i++) {
    dd[i] = d[i]! - sigma;
    dl[i] = i + 1 < n ? e[i]! : 0;
    du[i] = i + 1 < n ? e[i]! : 0;
    du2[i] = 0;
    swap[i] = 0;
  }
  for (let i = 0; i + 1 < n; i++) {
    if (Math.abs(dd[i]!) >= Math.abs(dl[i]!)) {
      // No interchange: eliminate dl[i] with the pivot dd[i].
      if (dd[i] !== 0) {
        const f = dl[i]! / dd[i]!;
        dl[i] = f;
        dd[i + 1]! -= f * du[i]!;
      }
    } else {
      // Rows i and i+1 interchanged.
      const f = dd[i]! / dl[i]!;
      dd[i] = dl[i]!;
      dl[i] = f;
      const t = du[i]!;
      du[i] = dd[i + 1]!;
      dd[i + 1] = t - f * dd[i + 1]!;
      if (i + 2 < n) {
        du2[i] = du[i + 1]!;
        du[i + 1] = -f * du[i + 1]!;
      }
      swap[i] = 1;
    }
  }
  for (let i = 0; i < n; i++) if (Math.abs(dd[i]!) < tiny) dd[i] = dd[i]! < 0 ? -tiny : tiny;
}

/** b ← (T − σI)⁻¹ b with the factors of `factor`. */
function solve(n: number, dl: Float64Array, dd: Float64Array, du: Float64Array, du2: Float64Array, swap: Uint8Array, b: Float64Array): void {
  for (let i = 0; i + 1 < n; i++) {
    if (swap[i] === 0) b[i + 1]! -= dl[i]! * b[i]!;
    else {
      const t = b[i]! - dl[i]! * b[i + 1]!;
      b[i] = b[i + 1]!;
      b[i + 1] = t;
    }
  }
  let big = 0;
  b[n - 1]! /= dd[n - 1]!;
  if (n > 1) b[n - 2] = (b[n - 2]! - du[n - 2]! * b[n - 1]!) / dd[n - 2]!;
  for (let i = n - 3; i >= 0; i--) b[i] = (b[i]! - du[i]! * b[i + 1]! - du2[i]! * b[i + 2]!) / dd[i]!;
  // Rescale when the solve grew large (near-singular shift), so the next solve cannot overflow.
  for (let i = 0; i < n; i++) big = Math.max(big, Math.abs(b[i]!));
  if (big > 1e150) for (let i = 0; i < n; i++) b[i]! /= big;
}
