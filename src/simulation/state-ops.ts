/** Whole-state operations used by measurement, reset and noise trajectories. */

/** Probability that qubit q reads 1. */
export function prob1(re: Float64Array, im: Float64Array, dim: number, q: number): number {
  const s = 1 << q;
  let p = 0;
  for (let i0 = s; i0 < dim; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) p += re[i]! * re[i]! + im[i]! * im[i]!;
  }
  return p;
}

/** Keeps the half where qubit q = outcome (scaled by `scale`) and zeroes the other half. */
export function collapse(re: Float64Array, im: Float64Array, dim: number, q: number, outcome: number, scale: number): void {
  const s = 1 << q;
  const keep = outcome === 1 ? s : 0;
  const drop = s - keep;
  for (let i0 = 0; i0 < dim; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) {
      re[i + keep]! *= scale;
      im[i + keep]! *= scale;
      re[i + drop] = 0;
      im[i + drop] = 0;
    }
  }
}

/** Moves the |1⟩ half of qubit q onto |0⟩ (times `scale`) and zeroes |1⟩: the amplitude-damping jump. */
export function lowerQubit(re: Float64Array, im: Float64Array, dim: number, q: number, scale: number): void {
  const s = 1 << q;
  for (let i0 = 0; i0 < dim; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) {
      re[i] = re[i + s]! * scale;
      im[i] = im[i + s]! * scale;
      re[i + s] = 0;
      im[i + s] = 0;
    }
  }
}

/** Scales the |0⟩ half of qubit q by a and the |1⟩ half by b (real factors). */
export function scaleHalves(re: Float64Array, im: Float64Array, dim: number, q: number, a: number, b: number): void {
  const s = 1 << q;
  for (let i0 = 0; i0 < dim; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) {
      re[i]! *= a;
      im[i]! *= a;
      re[i + s]! *= b;
      im[i + s]! *= b;
    }
  }
}
