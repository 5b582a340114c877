/**
 * In-place kernels over separate real/imaginary Float64Arrays. Each applies one compiled
 * op to the amplitudes [off, off + dim) of (re, im), with op qubits given as local bit
 * positions inside that range. Nothing is allocated: multi-qubit kinds use the op's own
 * scratch arrays, prepared at compile time.
 *
 * These functions are self-contained on purpose (no closures over module state), so the
 * same source can be shipped to a worker thread.
 */

/** Kinds of compiled op (plain numbers: isolatedModules forbids imported const enums). */
export const K_MAT1 = 0; // 2×2 on bit t, applied where all `cmask` bits are 1
export const K_H = 1; // Hadamard on bit t (no controls)
export const K_X = 2; // X on bit t, controlled by `cmask`
export const K_DIAG1 = 3; // diag(m0, m1) on bit t, controlled by `cmask`
export const K_PHASE = 4; // multiply by m0 where all `cmask` bits are 1
export const K_DIAGN = 5; // diagonal over bits `qs`, table m (interleaved re,im)
export const K_MONO = 6; // monomial (permutation × phases) over bits `qs`
export const K_DENSE = 7; // dense 2^k × 2^k over bits `qs`

export interface KOp {
  readonly kind: number;
  /** Target bit (1-qubit kinds). */
  readonly t: number;
  /** Control mask (MAT1, X, DIAG1) or the phase mask (PHASE). */
  readonly cmask: number;
  /** Numbers: MAT1 [ar,ai,br,bi,cr,ci,dr,di]; DIAG1 [d0r,d0i,d1r,d1i]; PHASE [pr,pi];
   *  DIAGN 2^k pairs; MONO 2^k phase pairs; DENSE 4^k pairs, row-major. */
  readonly m: Float64Array;
  /** Local bits of multi-qubit kinds (bit j of the op ↔ qs[j]). */
  readonly qs: Int32Array;
  /** OR of 1 << qs[j]. */
  readonly qmask: number;
  /** offs[c] = index offset of local basis state c of the op's qubits. */
  readonly offs: Int32Array;
  /** MONO: column c goes to row perm[c]. */
  readonly perm: Int32Array;
  /** Scratch for gathering one group of 2^k amplitudes (2·2^k). */
  readonly scratch: Float64Array;
}

export function applyOp(op: KOp, re: Float64Array, im: Float64Array, off: number, dim: number): void {
  switch (op.kind) {
    case K_MAT1:
      if (op.cmask === 0) mat1(re, im, off, dim, op.t, op.m);
      else cmat1(re, im, off, dim, op.t, op.cmask, op.m);
      return;
    case K_H:
      hadamard(re, im, off, dim, op.t);
      return;
    case K_X:
      pauliX(re, im, off, dim, op.t, op.cmask);
      return;
    case K_DIAG1:
      diag1(re, im, off, dim, op.t, op.cmask, op.m);
      return;
    case K_PHASE:
      phaseMask(re, im, off, dim, op.cmask, op.m[0]!, op.m[1]!);
      return;
    case K_DIAGN:
      diagN(re, im, off, dim, op.qs, op.m);
      return;
    case K_MONO:
      mono(re, im, off, dim, op);
      return;
    case K_DENSE:
      dense(re, im, off, dim, op);
      return;
  }
}

function mat1(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, m: Float64Array): void {
  const ar = m[0]!, ai = m[1]!, br = m[2]!, bi = m[3]!, cr = m[4]!, ci = m[5]!, dr = m[6]!, di = m[7]!;
  const s = 1 << t;
  const end = off + dim;
  for (let i0 = off; i0 < end; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) {
      const j = i + s;
      const xr = re[i]!, xi = im[i]!, yr = re[j]!, yi = im[j]!;
      re[i] = ar * xr - ai * xi + br * yr - bi * yi;
      im[i] = ar * xi + ai * xr + br * yi + bi * yr;
      re[j] = cr * xr - ci * xi + dr * yr - di * yi;
      im[j] = cr * xi + ci * xr + dr * yi + di * yr;
    }
  }
}

function cmat1(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, cmask: number, m: Float64Array): void {
  const ar = m[0]!, ai = m[1]!, br = m[2]!, bi = m[3]!, cr = m[4]!, ci = m[5]!, dr = m[6]!, di = m[7]!;
  const s = 1 << t;
  const free = (dim - 1) & ~(s | cmask);
  let f = 0;
  do {
    const i = off + (f | cmask);
    const j = i + s;
    const xr = re[i]!, xi = im[i]!, yr = re[j]!, yi = im[j]!;
    re[i] = ar * xr - ai * xi + br * yr - bi * yi;
    im[i] = ar * xi + ai * xr + br * yi + bi * yr;
    re[j] = cr * xr - ci * xi + dr * yr - di * yi;
    im[j] = cr * xi + ci * xr + dr * yi + di * yr;
    f = (f - free) & free;
  } while (f !== 0);
}

function hadamard(re: Float64Array, im: Float64Array, off: number, dim: number, t: number): void {
  const r = Math.SQRT1_2;
  const s = 1 << t;
  const end = off + dim;
  for (let i0 = off; i0 < end; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) {
      const j = i + s;
      const xr = re[i]!, xi = im[i]!, yr = re[j]!, yi = im[j]!;
      re[i] = r * (xr + yr);
      im[i] = r * (xi + yi);
      re[j] = r * (xr - yr);
      im[j] = r * (xi - yi);
    }
  }
}

function pauliX(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, cmask: number): void {
  const s = 1 << t;
  if (cmask === 0) {
    const end = off + dim;
    for (let i0 = off; i0 < end; i0 += s << 1) {
      const stop = i0 + s;
      for (let i = i0; i < stop; i++) {
        const j = i + s;
        const xr = re[i]!, xi = im[i]!;
        re[i] = re[j]!;
        im[i] = im[j]!;
        re[j] = xr;
        im[j] = xi;
      }
    }
    return;
  }
  const free = (dim - 1) & ~(s | cmask);
  let f = 0;
  do {
    const i = off + (f | cmask);
    const j = i + s;
    const xr = re[i]!, xi = im[i]!;
    re[i] = re[j]!;
    im[i] = im[j]!;
    re[j] = xr;
    im[j] = xi;
    f = (f - free) & free;
  } while (f !== 0);
}

function diag1(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, cmask: number, m: Float64Array): void {
  const ar = m[0]!, ai = m[1]!, dr = m[2]!, di = m[3]!;
  const s = 1 << t;
  if (cmask === 0) {
    const end = off + dim;
    for (let i0 = off; i0 < end; i0 += s << 1) {
      const stop = i0 + s;
      for (let i = i0; i < stop; i++) {
        const j = i + s;
        const xr = re[i]!, xi = im[i]!, yr = re[j]!, yi = im[j]!;
        re[i] = ar * xr - ai * xi;
        im[i] = ar * xi + ai * xr;
        re[j] = dr * yr - di * yi;
        im[j] = dr * yi + di * yr;
      }
    }
    return;
  }
  const free = (dim - 1) & ~(s | cmask);
  let f = 0;
  do {
    const i = off + (f | cmask);
    const j = i + s;
    const xr = re[i]!, xi = im[i]!, yr = re[j]!, yi = im[j]!;
    re[i] = ar * xr - ai * xi;
    im[i] = ar * xi + ai * xr;
    re[j] = dr * yr - di * yi;
    im[j] = dr * yi + di * yr;
    f = (f - free) & free;
  } while (f !== 0);
}

function phaseMask(re: Float64Array, im: Float64Array, off: number, dim: number, mask: number, pr: number, pi: number): void {
  if ((mask & (mask - 1)) === 0) {
    // One bit: contiguous runs, the common case (p, s, t, z).
    const end = off + dim;
    for (let i0 = off + mask; i0 < end; i0 += mask << 1) {
      const stop = i0 + mask;
      for (let i = i0; i < stop; i++) {
        const xr = re[i]!, xi = im[i]!;
        re[i] = pr * xr - pi * xi;
        im[i] = pr * xi + pi * xr;
      }
    }
    return;
  }
  for (let l = mask; l < dim; l = (l + 1) | mask) {
    const i = off + l;
    const xr = re[i]!, xi = im[i]!;
    re[i] = pr * xr - pi * xi;
    im[i] = pr * xi + pi * xr;
  }
}

function diagN(re: Float64Array, im: Float64Array, off: number, dim: number, qs: Int32Array, m: Float64Array): void {
  const k = qs.length;
  for (let l = 0; l < dim; l++) {
    let c = 0;
    for (let j = 0; j < k; j++) c |= ((l >> qs[j]!) & 1) << j;
    const pr = m[2 * c]!, pi = m[2 * c + 1]!;
    const i = off + l;
    const xr = re[i]!, xi = im[i]!;
    re[i] = pr * xr - pi * xi;
    im[i] = pr * xi + pi * xr;
  }
}

function mono(re: Float64Array, im: Float64Array, off: number, dim: number, op: KOp): void {
  const offs = op.offs, perm = op.perm, m = op.m, sc = op.scratch;
  const g = offs.length;
  const qmask = op.qmask;
  for (let b = 0; b < dim; b = ((b | qmask) + 1) & ~qmask) {
    const base = off + b;
    for (let c = 0; c < g; c++) {
      const i = base + offs[c]!;
      sc[2 * c] = re[i]!;
      sc[2 * c + 1] = im[i]!;
    }
    for (let c = 0; c < g; c++) {
      const i = base + offs[perm[c]!]!;
      const xr = sc[2 * c]!, xi = sc[2 * c + 1]!, pr = m[2 * c]!, pi = m[2 * c + 1]!;
      re[i] = pr * xr - pi * xi;
      im[i] = pr * xi + pi * xr;
    }
  }
}

function dense(re: Float64Array, im: Float64Array, off: number, dim: number, op: KOp): void {
  const offs = op.offs, m = op.m, sc = op.scratch;
  const g = offs.length;
  const qmask = op.qmask;
  for (let b = 0; b < dim; b = ((b | qmask) + 1) & ~qmask) {
    const base = off + b;
    for (let c = 0; c < g; c++) {
      const i = base + offs[c]!;
      sc[2 * c] = re[i]!;
      sc[2 * c + 1] = im[i]!;
    }
    for (let r = 0; r < g; r++) {
      let sr = 0;
      let si = 0;
      const row = 2 * r * g;
      for (let c = 0; c < g; c++) {
        const mr = m[row + 2 * c]!, mi = m[row + 2 * c + 1]!, xr = sc[2 * c]!, xi = sc[2 * c + 1]!;
        sr += mr * xr - mi * xi;
        si += mr * xi + mi * xr;
      }
      const i = base + offs[r]!;
      re[i] = sr;
      im[i] = si;
    }
  }
}
