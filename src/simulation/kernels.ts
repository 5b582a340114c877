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
export const K_MAT1X2 = 8; // two 2×2s on distinct bits t (m[0..7]) and cmask-as-bit u (m[8..15]) in one sweep
export const K_DH = 10; // diag(p0, p1)·[[1,1],[1,−1]] on bit t (H then a phase per row): m = [p0r, p0i, p1r, p1i]
export const K_PERM = 9; // X ops in order (targets qs, control masks offs) composed into one permutation (perm.ts)

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
    case K_MAT1X2:
      mat1x2(re, im, off, dim, op.t, op.cmask, op.m);
      return;
    case K_DH:
      rowPhasedH(re, im, off, dim, op.t, op.m);
      return;
  }
}

function mat1(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, m: Float64Array): void {
  const ar = m[0]!,
    ai = m[1]!,
    br = m[2]!,
    bi = m[3]!,
    cr = m[4]!,
    ci = m[5]!,
    dr = m[6]!,
    di = m[7]!;
  const s = 1 << t;
  const end = off + dim;
  for (let i0 = off; i0 < end; i0 += s << 1) {
    const stop = i0 + s;
    for (let i = i0; i < stop; i++) {
      const j = i + s;
      const xr = re[i]!,
        xi = im[i]!,
        yr = re[j]!,
        yi = im[j]!;
      re[i] = ar * xr - ai * xi + br * yr - bi * yi;
      im[i] = ar * xi + ai * xr + br * yi + bi * yr;
      re[j] = cr * xr - ci * xi + dr * yr - di * yi;
      im[j] = cr * xi + ci * xr + dr * yi + di * yr;
    }
  }
}

function cmat1(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, cmask: number, m: Float64Array): void {
  const ar = m[0]!,
    ai = m[1]!,
    br = m[2]!,
    bi = m[3]!,
    cr = m[4]!,
    ci = m[5]!,
    dr = m[6]!,
    di = m[7]!;
  const s = 1 << t;
  const free = (dim - 1) & ~(s | cmask);
  let f = 0;
  do {
    const i = off + (f | cmask);
    const j = i + s;
    const xr = re[i]!,
      xi = im[i]!,
      yr = re[j]!,
      yi = im[j]!;
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
      const xr = re[i]!,
        xi = im[i]!,
        yr = re[j]!,
        yi = im[j]!;
      re[i] = r * (xr + yr);
      im[i] = r * (xi + yi);
      re[j] = r * (xr - yr);
      im[j] = r * (xi - yi);
    }
  }
}

function rowPhasedH(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, m: Float64Array): void {
  const ar = m[0]!,
    ai = m[1]!,
    br = m[2]!,
    bi = m[3]!;
  const s = 1 << t;
  for (let i0 = off; i0 < off + dim; i0 += s << 1)
    for (let i = i0; i < i0 + s; i++) {
      const j = i + s;
      const sr = re[i]! + re[j]!,
        si = im[i]! + im[j]!,
        dr = re[i]! - re[j]!,
        di = im[i]! - im[j]!;
      re[i] = ar * sr - ai * si;
      im[i] = ar * si + ai * sr;
      re[j] = br * dr - bi * di;
      im[j] = br * di + bi * dr;
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
        const xr = re[i]!,
          xi = im[i]!;
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
    const xr = re[i]!,
      xi = im[i]!;
    re[i] = re[j]!;
    im[i] = im[j]!;
    re[j] = xr;
    im[j] = xi;
    f = (f - free) & free;
  } while (f !== 0);
}

function diag1(re: Float64Array, im: Float64Array, off: number, dim: number, t: number, cmask: number, m: Float64Array): void {
  const ar = m[0]!,
    ai = m[1]!,
    dr = m[2]!,
    di = m[3]!;
  const s = 1 << t;
  if (cmask === 0) {
    const end = off + dim;
    for (let i0 = off; i0 < end; i0 += s << 1) {
      const stop = i0 + s;
      for (let i = i0; i < stop; i++) {
        const j = i + s;
        const xr = re[i]!,
          xi = im[i]!,
          yr = re[j]!,
          yi = im[j]!;
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
    const xr = re[i]!,
      xi = im[i]!,
      yr = re[j]!,
      yi = im[j]!;
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
        const xr = re[i]!,
          xi = im[i]!;
        re[i] = pr * xr - pi * xi;
        im[i] = pr * xi + pi * xr;
      }
    }
    return;
  }
  for (let l = mask; l < dim; l = (l + 1) | mask) {
    const i = off + l;
    const xr = re[i]!,
      xi = im[i]!;
    re[i] = pr * xr - pi * xi;
    im[i] = pr * xi + pi * xr;
  }
}

function diagN(re: Float64Array, im: Float64Array, off: number, dim: number, qs: Int32Array, m: Float64Array): void {
  const k = qs.length;
  for (let l = 0; l < dim; l++) {
    let c = 0;
    for (let j = 0; j < k; j++) c |= ((l >> qs[j]!) & 1) << j;
    const pr = m[2 * c]!,
      pi = m[2 * c + 1]!;
    const i = off + l;
    const xr = re[i]!,
      xi = im[i]!;
    re[i] = pr * xr - pi * xi;
    im[i] = pr * xi + pi * xr;
  }
}

function mono(re: Float64Array, im: Float64Array, off: number, dim: number, op: KOp): void {
  const offs = op.offs,
    perm = op.perm,
    m = op.m,
    sc = op.scratch;
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
      const xr = sc[2 * c]!,
        xi = sc[2 * c + 1]!,
        pr = m[2 * c]!,
        pi = m[2 * c + 1]!;
      re[i] = pr * xr - pi * xi;
      im[i] = pr * xi + pi * xr;
    }
  }
}

function dense(re: Float64Array, im: Float64Array, off: number, dim: number, op: KOp): void {
  const offs = op.offs,
    m = op.m,
    sc = op.scratch;
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
        const mr = m[row + 2 * c]!,
          mi = m[row + 2 * c + 1]!,
          xr = sc[2 * c]!,
          xi = sc[2 * c + 1]!;
        sr += mr * xr - mi * xi;
        si += mr * xi + mi * xr;
      }
      const i = base + offs[r]!;
      re[i] = sr;
      im[i] = si;
    }
  }
}

/**
 * Two single-qubit matrices on bits a (m[0..7]) and b (m[8..15]), a ≠ b, in one sweep:
 * the same arithmetic as two passes with half the loads and stores.
 */
function mat1x2(re: Float64Array, im: Float64Array, off: number, dim: number, a: number, b: number, m: Float64Array): void {
  const ar = m[0]!,
    ai = m[1]!,
    br = m[2]!,
    bi = m[3]!,
    cr = m[4]!,
    ci = m[5]!,
    dr = m[6]!,
    di = m[7]!;
  const er = m[8]!,
    ei = m[9]!,
    fr = m[10]!,
    fi = m[11]!,
    gr = m[12]!,
    gi = m[13]!,
    hr = m[14]!,
    hi = m[15]!;
  const sa = 1 << a;
  const sb = 1 << b;
  const lo = sa < sb ? sa : sb;
  const hiS = sa < sb ? sb : sa;
  const end = off + dim;
  for (let i2 = off; i2 < end; i2 += hiS << 1) {
    for (let i1 = i2; i1 < i2 + hiS; i1 += lo << 1) {
      const stop = i1 + lo;
      for (let i = i1; i < stop; i++) {
        const j = i + sa,
          k = i + sb,
          l = i + sa + sb;
        const x0r = re[i]!,
          x0i = im[i]!,
          x1r = re[j]!,
          x1i = im[j]!,
          x2r = re[k]!,
          x2i = im[k]!,
          x3r = re[l]!,
          x3i = im[l]!;
        // first matrix on bit a: pairs (i, j) and (k, l)
        const y0r = ar * x0r - ai * x0i + br * x1r - bi * x1i,
          y0i = ar * x0i + ai * x0r + br * x1i + bi * x1r;
        const y1r = cr * x0r - ci * x0i + dr * x1r - di * x1i,
          y1i = cr * x0i + ci * x0r + dr * x1i + di * x1r;
        const y2r = ar * x2r - ai * x2i + br * x3r - bi * x3i,
          y2i = ar * x2i + ai * x2r + br * x3i + bi * x3r;
        const y3r = cr * x2r - ci * x2i + dr * x3r - di * x3i,
          y3i = cr * x2i + ci * x2r + dr * x3i + di * x3r;
        // second matrix on bit b: pairs (i, k) and (j, l)
        re[i] = er * y0r - ei * y0i + fr * y2r - fi * y2i;
        im[i] = er * y0i + ei * y0r + fr * y2i + fi * y2r;
        re[k] = gr * y0r - gi * y0i + hr * y2r - hi * y2i;
        im[k] = gr * y0i + gi * y0r + hr * y2i + hi * y2r;
        re[j] = er * y1r - ei * y1i + fr * y3r - fi * y3i;
        im[j] = er * y1i + ei * y1r + fr * y3i + fi * y3r;
        re[l] = gr * y1r - gi * y1i + hr * y3r - hi * y3i;
        im[l] = gr * y1i + gi * y1r + hr * y3i + hi * y3r;
      }
    }
  }
}
