/**
 * The one numeric policy of the optimizer and its checker: the tolerances and the exact angle
 * reduction both sides use. Only constants and pure arithmetic live here, so sharing it does not
 * weaken the checker's independence (it decides nothing about gates); what it guarantees is that a
 * pass never rounds more loosely than the proof accepts (docs/decisions/optimization-numeric-policy.md).
 *
 * Distances are operator-norm distances up to a global phase: min_φ ‖A − e^{iφ}B‖. They add up over
 * a sequence of rewrites (unitary invariance and the triangle inequality), so a certificate whose
 * steps deviate by δ₁, δ₂, … is within Σδ of its input.
 */

/** The whole-circuit proof: ‖B†A·e_j − λ·e_j‖₂ ≤ PROOF_EPS for every basis column (unitary method). */
export const PROOF_EPS = 1e-9;

/**
 * The most a certificate's local steps may deviate in total. A distance D between the circuits
 * moves each column of the miter by at most 2D (D for the column, D for the estimate of λ), so a
 * quarter of the proof tolerance leaves room for the floating-point noise of the check itself.
 */
export const CERTIFICATE_BUDGET = PROOF_EPS / 4;

/**
 * The largest deviation one rewrite of the passes may introduce on purpose (dropping a rotation by
 * a tiny angle, writing a merged angle as a named gate, choosing a shorter word). Far below the
 * budget, so a long certificate of such steps stays inside it; the recorder also counts them.
 */
export const APPROX_EPS = 1e-12;

/**
 * What a rewrite that is exact in real arithmetic may still differ by once evaluated in doubles (a
 * resynthesised u3, a merged angle). Accepted even when no rounding budget is left.
 */
export const FLOAT_NOISE = 1e-14;

/** Above this magnitude a double's spacing exceeds PROOF_EPS: the angle is taken as the exact binary value it is. */
export const ANGLE_PRECISION_LIMIT = 2 ** 23;

const TAU = 2 * Math.PI;

// 2π in fixed point with FRAC fraction bits, from Machin's formula π = 16·atan(1/5) − 4·atan(1/239). Enough
// bits that k·2π is exact to far below a double's resolution for every finite double (|k| < 2^1022).
const FRAC = 1280n;
const GUARD = 64n;

function atanInverse(x: bigint, one: bigint): bigint {
  const x2 = x * x;
  let term = one / x;
  let sum = 0n;
  let n = 1n;
  let positive = true;
  while (term !== 0n) {
    sum += positive ? term / n : -(term / n);
    term /= x2;
    n += 2n;
    positive = !positive;
  }
  return sum;
}

const TWO_PI_FIXED: bigint = (() => {
  const one = 1n << (FRAC + GUARD);
  const pi = 16n * atanInverse(5n, one) - 4n * atanInverse(239n, one);
  return (2n * pi) >> GUARD;
})();

const view = new DataView(new ArrayBuffer(8));

/** |a| as m·2^e with an integer mantissa m (a finite, non-zero). */
function decompose(a: number): { m: bigint; e: number } {
  view.setFloat64(0, Math.abs(a));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { m: frac, e: -1074 };
  return { m: frac | (1n << 52n), e: biased - 1075 };
}

/** Exact a mod (turns·2π) into (−turns·π, turns·π], for a far beyond the fast path. */
function reduceExact(a: number, turns: 1 | 2): number {
  const { m, e } = decompose(a);
  const period = BigInt(turns) * TWO_PI_FIXED;
  let r = (m << (BigInt(e) + FRAC)) % period; // e ≥ −1074 > −FRAC, so the shift is left
  if (a < 0) r = -r;
  if (2n * r > period) r -= period;
  else if (2n * r <= -period) r += period;
  const keep = 120n; // bits below the binary point kept before the (correctly rounded) conversion
  return Number(r >> (FRAC - keep)) / 2 ** Number(keep);
}

/**
 * a reduced modulo `period` (2π or 4π) into (−period/2, period/2], exactly for every finite double:
 * the double is taken as the exact binary number it is, and 2π is carried to 1280 bits. An angle
 * already in range is returned unchanged (the same double), so reducing never perturbs it.
 */
export function reduceAngle(a: number, period: number = TAU): number {
  const turns = period === 2 * TAU ? 2 : 1;
  const half = turns * Math.PI;
  if (!Number.isFinite(a)) return NaN;
  if (a > -half && a <= half) return a;
  if (Math.abs(a) <= 3 * half) {
    // within one period of the range: a − fl(period) is exact (Sterbenz), then the low part
    const k = a > 0 ? 1 : -1;
    const hi = turns * TAU;
    const lo = turns * 2.4492935982947064e-16; // 2π − fl(2π)
    const r = a - k * hi - k * lo;
    return r > half ? r - hi : r <= -half ? r + hi : r;
  }
  return reduceExact(a, turns);
}

/** a + b reduced (each operand reduced first, so huge inputs add without losing the result). */
export function addAngles(a: number, b: number, period: number = TAU): number {
  return reduceAngle(reduceAngle(a, period) + reduceAngle(b, period), period);
}

/** The signed difference a − b reduced into (−period/2, period/2]. */
export function angleDifference(a: number, b: number, period: number = TAU): number {
  return reduceAngle(reduceAngle(a, period) - reduceAngle(b, period), period);
}

/**
 * The distance up to phase between two rotations R(a) and R(b) of one family with the given
 * period (diag(1, e^{iθ}), rz, rx, …, and the controlled ones with period 4π): 2·sin(|d|/4) ≤ |d|/2
 * for the reduced difference d; the bound |d|/2 is what is counted.
 */
export function rotationDistance(a: number, b: number, period: number = TAU): number {
  return Math.abs(angleDifference(a, b, period)) / 2;
}

/** Fraction of a full turn, exactly reduced: e^{i·a·scale} = e^{2πi·turnsOf(a, scale)} with scale 1 or 1/2. */
export function turnsOf(a: number, scale: 1 | 0.5 = 1): number {
  const period = scale === 1 ? TAU : 2 * TAU;
  return reduceAngle(a, period) / period;
}

/**
 * k ∈ {0, 1, 2, 3} when the phase angle a is k quarter turns (k·π/2) to within `tol` as a rotation
 * distance, else undefined. Phase teleportation's pass and its checker both classify phase gates
 * with it (Clifford or not), which fixes the certificate's variable numbering; the checker counts
 * the rounding this classification implies against the certificate budget.
 */
export function quarterTurns(a: number, tol: number = FLOAT_NOISE): number | undefined {
  const r = reduceAngle(a);
  const k = Math.round(r / (Math.PI / 2));
  if (!(rotationDistance(r, k * (Math.PI / 2)) <= tol)) return undefined; // NaN is no quarter turn
  return ((k % 4) + 4) % 4;
}
