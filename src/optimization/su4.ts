import type { M2 } from './su2.js';

/**
 * 4×4 complex algebra and the magic-basis (KAK) decomposition for two-qubit block
 * resynthesis — the passes' own; the certificate checker has separate matrices.
 * A C4 is row-major with (re, im) pairs; basis index 2·b0 + b1 (first qubit most significant).
 */
export type C4 = Float64Array;
type R4 = number[][]; // real 4×4

const ix = (r: number, c: number) => (r * 4 + c) * 2;
const get = (m: Float64Array, i: number) => m[i]!;

export function eye4(): C4 {
  const m = new Float64Array(32);
  for (let i = 0; i < 4; i++) m[ix(i, i)] = 1;
  return m;
}

export function mul4(a: C4, b: C4): C4 {
  const o = new Float64Array(32);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      let re = 0;
      let im = 0;
      for (let k = 0; k < 4; k++) {
        const ar = get(a, ix(r, k)),
          ai = get(a, ix(r, k) + 1),
          br = get(b, ix(k, c)),
          bi = get(b, ix(k, c) + 1);
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
      }
      o[ix(r, c)] = re;
      o[ix(r, c) + 1] = im;
    }
  return o;
}

/** Transpose, conjugating when `conj` (the adjoint). */
export function transpose4(a: C4, conj = false): C4 {
  const o = new Float64Array(32);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      o[ix(c, r)] = get(a, ix(r, c));
      o[ix(c, r) + 1] = conj ? -get(a, ix(r, c) + 1) : get(a, ix(r, c) + 1);
    }
  return o;
}

export function kron2(a: M2, b: M2): C4 {
  const o = new Float64Array(32);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) {
      const x = 2 * (2 * (r >> 1) + (c >> 1));
      const y = 2 * (2 * (r & 1) + (c & 1));
      o[ix(r, c)] = a[x]! * b[y]! - a[x + 1]! * b[y + 1]!;
      o[ix(r, c) + 1] = a[x]! * b[y + 1]! + a[x + 1]! * b[y]!;
    }
  return o;
}

function scale4(a: C4, re: number, im: number): C4 {
  const o = new Float64Array(32);
  for (let i = 0; i < 32; i += 2) {
    o[i] = get(a, i) * re - get(a, i + 1) * im;
    o[i + 1] = get(a, i) * im + get(a, i + 1) * re;
  }
  return o;
}

function det4(a: C4): [number, number] {
  const m = Float64Array.from(a);
  let dr = 1;
  let di = 0;
  for (let c = 0; c < 4; c++) {
    let p = c;
    for (let r = c + 1; r < 4; r++) if (Math.hypot(get(m, ix(r, c)), get(m, ix(r, c) + 1)) > Math.hypot(get(m, ix(p, c)), get(m, ix(p, c) + 1))) p = r;
    if (p !== c) {
      for (let k = 0; k < 8; k++) [m[c * 8 + k], m[p * 8 + k]] = [get(m, p * 8 + k), get(m, c * 8 + k)];
      dr = -dr;
      di = -di;
    }
    const pr = get(m, ix(c, c)),
      pi = get(m, ix(c, c) + 1);
    [dr, di] = [dr * pr - di * pi, dr * pi + di * pr];
    const n = pr * pr + pi * pi;
    if (n < 1e-300) return [0, 0];
    for (let r = c + 1; r < 4; r++) {
      // f = m[r][c] / pivot
      const xr = get(m, ix(r, c)),
        xi = get(m, ix(r, c) + 1);
      const fr = (xr * pr + xi * pi) / n,
        fi = (xi * pr - xr * pi) / n;
      for (let k = c; k < 4; k++) {
        const yr = get(m, ix(c, k)),
          yi = get(m, ix(c, k) + 1);
        m[ix(r, k)] = get(m, ix(r, k)) - (fr * yr - fi * yi);
        m[ix(r, k) + 1] = get(m, ix(r, k) + 1) - (fr * yi + fi * yr);
      }
    }
  }
  return [dr, di];
}

/** U scaled into SU(4) (one of the four fourth roots of det). */
export function toSU4(u: C4): C4 {
  const [dr, di] = det4(u);
  const t = -Math.atan2(di, dr) / 4;
  const s = Math.pow(Math.hypot(dr, di), -0.25);
  return scale4(u, s * Math.cos(t), s * Math.sin(t));
}

/** Whether a ≅ b up to a global phase, entrywise within eps. */
export function equalUpToPhase4(a: C4, b: C4, eps = 1e-9): boolean {
  let k = 0;
  for (let i = 0; i < 32; i += 2) if (Math.hypot(get(a, i), get(a, i + 1)) > Math.hypot(get(a, k), get(a, k + 1))) k = i;
  const n = get(b, k) * get(b, k) + get(b, k + 1) * get(b, k + 1);
  if (n < 1e-12) return false;
  // phase p = a_k / b_k
  const pr = (get(a, k) * get(b, k) + get(a, k + 1) * get(b, k + 1)) / n;
  const pi = (get(a, k + 1) * get(b, k) - get(a, k) * get(b, k + 1)) / n;
  const bs = scale4(b, pr, pi);
  for (let i = 0; i < 32; i++) if (Math.abs(get(a, i) - get(bs, i)) > eps) return false;
  return true;
}

// Magic basis: columns (|00⟩+|11⟩)/√2, i(|00⟩−|11⟩)/√2, i(|01⟩+|10⟩)/√2, (|01⟩−|10⟩)/√2.
// In it SU(2)⊗SU(2) is SO(4) and exp(i(xXX+yYY+zZZ)) is diagonal.
const MAGIC: C4 = (() => {
  const h = Math.SQRT1_2;
  const cols: [number, number][][] = [
    [
      [h, 0],
      [0, 0],
      [0, 0],
      [h, 0],
    ],
    [
      [0, h],
      [0, 0],
      [0, 0],
      [0, -h],
    ],
    [
      [0, 0],
      [0, h],
      [0, h],
      [0, 0],
    ],
    [
      [0, 0],
      [h, 0],
      [-h, 0],
      [0, 0],
    ],
  ];
  const m = new Float64Array(32);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) [m[ix(r, c)], m[ix(r, c) + 1]] = cols[c]![r]!;
  return m;
})();
const MAGIC_ADJ = transpose4(MAGIC, true);

const toMagic = (u: C4) => mul4(MAGIC_ADJ, mul4(u, MAGIC));
const fromMagic = (u: C4) => mul4(MAGIC, mul4(u, MAGIC_ADJ));

function realToC4(o: R4): C4 {
  const m = new Float64Array(32);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) m[ix(r, c)] = o[r]![c]!;
  return m;
}

/** Cyclic Jacobi eigenvectors (columns) of a real symmetric 4×4. */
function jacobi(a0: R4): R4 {
  const a = a0.map((r) => [...r]);
  const v: R4 = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < 4; p++) for (let q = p + 1; q < 4; q++) off += a[p]![q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < 4; p++)
      for (let q = p + 1; q < 4; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const th = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = (th >= 0 ? 1 : -1) / (Math.abs(th) + Math.sqrt(th * th + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 4; k++) {
          const akp = a[k]![p]!,
            akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < 4; k++) {
          const apk = a[p]![k]!,
            aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < 4; k++) {
          const vkp = v[k]![p]!,
            vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
  }
  return v;
}

const detR = (o: R4) => {
  const m = realToC4(o);
  return det4(m)[0];
};

/** Magic-basis decomposition of U ∈ SU(4): M†UM = O1 · diag(d) · O2 with O1, O2 ∈ SO(4). */
export interface KakParts {
  readonly o1: R4;
  readonly d: readonly [number, number][];
  readonly o2: R4;
}

export function kakParts(su: C4): KakParts | undefined {
  const up = toMagic(su);
  const s = mul4(transpose4(up), up); // complex symmetric unitary: real and imaginary parts commute
  for (const r of [0.6180339887, 1.7320508075, 0.2360679774, 3.1415926535]) {
    const j = [0, 1, 2, 3].map((a) => [0, 1, 2, 3].map((b) => get(s, ix(a, b)) + r * get(s, ix(a, b) + 1)));
    const v = jacobi(j);
    if (detR(v) < 0) for (const row of v) row[0] = -row[0]!;
    const vc = realToC4(v);
    const diag = mul4(transpose4(vc), mul4(s, vc));
    let off = 0;
    for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) if (a !== b) off = Math.max(off, Math.hypot(get(diag, ix(a, b)), get(diag, ix(a, b) + 1)));
    if (off > 1e-11) continue;
    // d = sqrt of the eigenvalues, the product made +1 so that O1 is in SO(4)
    const d = [0, 1, 2, 3].map((k) => {
      const ang = Math.atan2(get(diag, ix(k, k) + 1), get(diag, ix(k, k))) / 2;
      return [Math.cos(ang), Math.sin(ang)] as [number, number];
    });
    const sumAng = d.reduce((t, [re, im]) => t + Math.atan2(im, re), 0);
    if (Math.cos(sumAng) < 0) d[0] = [-d[0]![0], -d[0]![1]];
    const o2 = v[0]!.map((_, c) => v.map((row) => row[c]!)); // Vᵀ
    // O1 = Up · O2ᵀ · D⁻¹
    const dInv = new Float64Array(32);
    d.forEach(([re, im], k) => {
      dInv[ix(k, k)] = re;
      dInv[ix(k, k) + 1] = -im;
    });
    const o1c = mul4(up, mul4(vc, dInv));
    const o1 = [0, 1, 2, 3].map((a) => [0, 1, 2, 3].map((b) => get(o1c, ix(a, b))));
    return { o1, d, o2 };
  }
  return undefined;
}

/** Canonical interaction coefficients (x, y, z): U ≅ locals · exp(i(xXX + yYY + zZZ)) · locals, each mod π/2. */
const SIGNS: number[][] = (() => {
  const px: M2 = [0, 0, 1, 0, 1, 0, 0, 0];
  const py: M2 = [0, 0, 0, -1, 0, 1, 0, 0];
  const pz: M2 = [1, 0, 0, 0, 0, 0, -1, 0];
  return [px, py, pz].map((p) => {
    const m = toMagic(kron2(p, p));
    return [0, 1, 2, 3].map((k) => Math.sign(get(m, ix(k, k))));
  });
})();

export function interactionCoefficients(parts: KakParts): [number, number, number] {
  const th = parts.d.map(([re, im]) => Math.atan2(im, re));
  return SIGNS.map((s) => s.reduce((t, sk, k) => t + sk * th[k]!, 0) / 4) as [number, number, number];
}

const YY: C4 = kron2([0, 0, 0, -1, 0, 1, 0, 0], [0, 0, 0, -1, 0, 1, 0, 0]);

/**
 * Minimal CNOT count from the invariants of γ(U) = U·(Y⊗Y)·Uᵀ·(Y⊗Y), U ∈ SU(4)
 * (Shende, Markov, Bullock 2004): γ = ±I → 0; χ_γ = (x²+1)² → 1; tr γ real → 2; else 3.
 */
export function minimalCnots(su: C4, tol = 1e-7): 0 | 1 | 2 | 3 {
  const gam = mul4(su, mul4(YY, mul4(transpose4(su), YY)));
  const tr = (m: C4): [number, number] => [0, 1, 2, 3].reduce<[number, number]>((t, k) => [t[0] + get(m, ix(k, k)), t[1] + get(m, ix(k, k) + 1)], [0, 0]);
  const [tr1r, tr1i] = tr(gam);
  if (Math.abs(Math.abs(tr1r) - 4) < tol && Math.abs(tr1i) < tol) return 0;
  const [tr2r, tr2i] = tr(mul4(gam, gam));
  if (Math.hypot(tr1r, tr1i) < tol && Math.abs(tr2r + 4) < tol && Math.abs(tr2i) < tol) return 1;
  if (Math.abs(tr1i) < tol) return 2;
  return 3;
}

/** A ⊗ B with K ≅ A⊗B (up to phase), or undefined when K is not a product. */
export function factorLocal(k: C4): [M2, M2] | undefined {
  let p = 0;
  for (let i = 0; i < 32; i += 2) if (Math.hypot(get(k, i), get(k, i + 1)) > Math.hypot(get(k, p), get(k, p + 1))) p = i;
  const r0 = (p >> 1) >> 2;
  const c0 = (p >> 1) & 3;
  const [i0, i1, j0, j1] = [r0 >> 1, r0 & 1, c0 >> 1, c0 & 1];
  const b: number[] = [];
  for (let s = 0; s < 2; s++) for (let t = 0; t < 2; t++) b.push(get(k, ix(2 * i0 + s, 2 * j0 + t)), get(k, ix(2 * i0 + s, 2 * j0 + t) + 1));
  const pr = get(k, p),
    pi = get(k, p + 1);
  const n = pr * pr + pi * pi;
  const a: number[] = [];
  for (let r = 0; r < 2; r++)
    for (let c = 0; c < 2; c++) {
      const xr = get(k, ix(2 * r + i1, 2 * c + j1)),
        xi = get(k, ix(2 * r + i1, 2 * c + j1) + 1);
      a.push((xr * pr + xi * pi) / n, (xi * pr - xr * pi) / n);
    }
  // unit scale for each factor (K fixes only the product of the scales)
  const unit = (m: number[]) => {
    const det = Math.hypot(m[0]! * m[6]! - m[1]! * m[7]! - (m[2]! * m[4]! - m[3]! * m[5]!), m[0]! * m[7]! + m[1]! * m[6]! - (m[2]! * m[5]! + m[3]! * m[4]!));
    return m.map((x) => x / Math.sqrt(det)) as M2;
  };
  const out: [M2, M2] = [unit(a), unit(b)];
  return equalUpToPhase4(kron2(out[0], out[1]), k, 1e-9) ? out : undefined;
}

const PERMS: number[][] = (() => {
  const out: number[][] = [];
  const go = (p: number[]) => {
    if (p.length === 4) out.push(p);
    else for (let i = 0; i < 4; i++) if (!p.includes(i)) go([...p, i]);
  };
  go([]);
  return out;
})();

/**
 * All ways to write U ≅ L · V · R with L, R local (as 4×4), given U and V in SU(4) with
 * their magic-basis parts: the diagonals must agree up to a permutation, signs and a
 * global factor w ∈ {1, i}.
 */
export function localEquivalences(pu: KakParts, pv: KakParts): { left: C4; right: C4 }[] {
  const out: { left: C4; right: C4 }[] = [];
  for (const perm of PERMS)
    for (const [wr, wi] of [
      [1, 0],
      [0, 1],
    ] as const) {
      const signs: number[] = [];
      for (let k = 0; k < 4; k++) {
        const [vr, vi] = pv.d[perm[k]!]!;
        const xr = vr * wr - vi * wi,
          xi = vr * wi + vi * wr; // w·dv
        const [ur, ui] = pu.d[k]!;
        if (Math.hypot(ur - xr, ui - xi) < 1e-7) signs.push(1);
        else if (Math.hypot(ur + xr, ui + xi) < 1e-7) signs.push(-1);
        else break;
      }
      if (signs.length < 4) continue;
      // P with P_{k,perm(k)} = 1; fix det(S·P) = +1 by flipping the sign of one row pair-wise
      const p: R4 = [0, 1, 2, 3].map((k) => [0, 1, 2, 3].map((j) => (j === perm[k] ? 1 : 0)));
      const sp: R4 = p.map((row, k) => row.map((x) => x * signs[k]!));
      const pe: R4 = p.map((row) => [...row]);
      if (detR(sp) < 0) {
        for (const row of sp) row[perm[0]!] = -row[perm[0]!]!;
        for (const row of pe) row[perm[0]!] = -row[perm[0]!]!;
      }
      const mulR = (x: R4, y: R4): R4 => x.map((row) => y[0]!.map((_, c) => row.reduce((t, v, k) => t + v * y[k]![c]!, 0)));
      const tR = (x: R4): R4 => x[0]!.map((_, c) => x.map((row) => row[c]!));
      const a = mulR(pu.o1, mulR(sp, tR(pv.o1)));
      const b = mulR(tR(pv.o2), mulR(tR(pe), pu.o2));
      out.push({ left: fromMagic(realToC4(a)), right: fromMagic(realToC4(b)) });
    }
  return out;
}
