import { hermitianEigenvalues, matMul, psdSqrt, realEmbedding, symmetricEigen, symmetrize, type ComplexMatrix } from './hermitian.js';

/**
 * Entanglement measures of reduced density matrices. Entropies are in bits (log base 2).
 * Basis order of a two-qubit matrix: index = x_a + 2·x_b (qubit a is the low bit), which
 * matches the simulator's little-endian amplitude order; every measure here is symmetric
 * in a and b, so the order only matters for reading the matrices themselves.
 */

/** Eigenvalues below this are rounding noise of a PSD matrix with trace 1. */
const ZERO_EIGENVALUE = 1e-14;

/** −Σ λ log₂ λ over the eigenvalues of a density matrix. */
export function entropyBitsFromEigenvalues(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) {
    const l = values[i] as number;
    if (l > ZERO_EIGENVALUE) s -= l * Math.log2(l);
  }
  return Math.max(0, s);
}

/** Eigenvalues of a 2×2 Hermitian [[p0, c], [c*, p1]] in closed form. */
export function qubitEigenvalues(p0: number, p1: number, cRe: number, cIm: number): [number, number] {
  const mean = (p0 + p1) / 2;
  const half = Math.sqrt(((p0 - p1) / 2) ** 2 + cRe * cRe + cIm * cIm);
  return [mean - half, mean + half];
}

/** von Neumann entropy (bits) of a single-qubit density matrix [[p0, c], [c*, p1]]. */
export function qubitEntropyBits(p0: number, p1: number, cRe: number, cIm: number): number {
  return entropyBitsFromEigenvalues(qubitEigenvalues(p0, p1, cRe, cIm));
}

/** von Neumann entropy (bits) of a Hermitian density matrix of any small size. */
export function entropyBits(rho: ComplexMatrix): number {
  return entropyBitsFromEigenvalues(hermitianEigenvalues(rho));
}

/** σy⊗σy is real: −1, +1, +1, −1 on the anti-diagonal (basis 00, 01, 10, 11). */
const YY_SIGN = [-1, 1, 1, -1] as const;

/** ρ̃ = (σy⊗σy) ρ* (σy⊗σy), the spin-flipped state of Wootters. */
export function spinFlip(rho: ComplexMatrix): ComplexMatrix {
  const re = new Float64Array(16);
  const im = new Float64Array(16);
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      const s = YY_SIGN[i]! * YY_SIGN[j]!;
      re[i * 4 + j] = s * (rho.re[(3 - i) * 4 + (3 - j)] as number);
      im[i * 4 + j] = -s * (rho.im[(3 - i) * 4 + (3 - j)] as number);
    }
  }
  return { n: 4, re, im };
}

/**
 * Wootters concurrence of a two-qubit density matrix: C = max(0, λ1 − λ2 − λ3 − λ4) with
 * λi the decreasing square roots of the eigenvalues of ρρ̃. ρρ̃ is not Hermitian, so its
 * eigenvalues are taken from the Hermitian PSD matrix √ρ ρ̃ √ρ, which has the same spectrum
 * (AB and BA share eigenvalues). Everything runs on real 8×8 embeddings with Jacobi.
 */
export function concurrence(rho: ComplexMatrix): number {
  const m = 8;
  const sqrtRho = psdSqrt(symmetrize(realEmbedding(rho), m), m);
  const flipped = realEmbedding(spinFlip(rho));
  const r = symmetrize(matMul(matMul(sqrtRho, flipped, m), sqrtRho, m), m);
  const { values } = symmetricEigen(r, m);
  const lambdas: number[] = [];
  for (let k = 0; k < 4; k++) {
    const nu = ((values[2 * k] as number) + (values[2 * k + 1] as number)) / 2;
    // √ turns rounding noise of 1e-17 into 3e-9; below the noise floor the eigenvalue is 0.
    lambdas.push(nu > ZERO_EIGENVALUE ? Math.sqrt(nu) : 0);
  }
  lambdas.sort((x, y) => y - x);
  const c = lambdas[0]! - lambdas[1]! - lambdas[2]! - lambdas[3]!;
  return Math.min(1, Math.max(0, c));
}
