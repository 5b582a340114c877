/**
 * Column orthonormalisation for the QR steps that move the MPS orthogonality centre (mps-state.ts):
 * classical Gram–Schmidt applied twice, which is orthogonal to machine precision for the
 * well-conditioned and the rank-deficient site matrices alike.
 */

import { qrSpace } from './mps-wasm.js';

/**
 * Orthonormalises q columns of length m stored contiguously (column j at j·m) in place, Gram–Schmidt
 * twice; a column dependent on the earlier ones becomes zero. When `rr`/`ri` (q×q, zeroed) are given
 * they receive R with M = Q·R (row c, column j: the coefficient of Q's column c in M's column j), so
 * the caller needs no separate Q†M product.
 */
export function orthonormaliseColumns(m: number, q: number, re0: Float64Array, im0: Float64Array, rr?: Float64Array, ri?: Float64Array): void {
  // The projections in WebAssembly when R is wanted and m is even (same order, same result).
  const ws = rr !== undefined && ri !== undefined ? qrSpace(m, q, re0, im0, rr, ri) : null;
  const re = ws?.re ?? re0;
  const im = ws?.im ?? im0;
  for (let j = 0; j < q; j++) {
    const oj = j * m;
    let n0 = 0;
    for (let i = 0; i < m; i++) n0 += re[oj + i]! * re[oj + i]! + im[oj + i]! * im[oj + i]!;
    for (let pass = 0; pass < 2; pass++) {
      if (ws !== null) {
        ws.project(j);
        continue;
      }
      // Two earlier columns per step, so each load of column j serves both: they are orthonormal
      // already, so projecting on both from the same vector equals projecting one after the other up
      // to rounding, which the second pass removes.
      let c = 0;
      for (; c + 1 < j; c += 2) {
        const oc = c * m;
        const od = oc + m;
        let dr = 0;
        let di = 0;
        let er = 0;
        let ei = 0;
        for (let i = 0; i < m; i++) {
          const vr = re[oj + i]!;
          const vi = im[oj + i]!;
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          const wr = re[od + i]!;
          const wi = im[od + i]!;
          dr += ur * vr + ui * vi;
          di += ur * vi - ui * vr;
          er += wr * vr + wi * vi;
          ei += wr * vi - wi * vr;
        }
        if (dr === 0 && di === 0 && er === 0 && ei === 0) continue;
        if (rr !== undefined && ri !== undefined) {
          rr[c * q + j]! += dr;
          ri[c * q + j]! += di;
          rr[(c + 1) * q + j]! += er;
          ri[(c + 1) * q + j]! += ei;
        }
        for (let i = 0; i < m; i++) {
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          const wr = re[od + i]!;
          const wi = im[od + i]!;
          re[oj + i]! -= dr * ur - di * ui + er * wr - ei * wi;
          im[oj + i]! -= dr * ui + di * ur + er * wi + ei * wr;
        }
      }
      for (; c < j; c++) {
        const oc = c * m;
        let dr = 0;
        let di = 0;
        for (let i = 0; i < m; i++) {
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          const vr = re[oj + i]!;
          const vi = im[oj + i]!;
          dr += ur * vr + ui * vi;
          di += ur * vi - ui * vr;
        }
        if (dr === 0 && di === 0) continue;
        if (rr !== undefined && ri !== undefined) {
          rr[c * q + j]! += dr;
          ri[c * q + j]! += di;
        }
        for (let i = 0; i < m; i++) {
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          re[oj + i]! -= dr * ur - di * ui;
          im[oj + i]! -= dr * ui + di * ur;
        }
      }
    }
    let n1 = 0;
    for (let i = 0; i < m; i++) n1 += re[oj + i]! * re[oj + i]! + im[oj + i]! * im[oj + i]!;
    const inv = n1 > 1e-24 * n0 && n1 > 0 ? 1 / Math.sqrt(n1) : 0;
    if (rr !== undefined && inv > 0) {
      if (ws !== null) ws.setR(j * q + j, Math.sqrt(n1));
      else rr[j * q + j] = Math.sqrt(n1);
    }
    for (let i = 0; i < m; i++) {
      re[oj + i]! *= inv;
      im[oj + i]! *= inv;
    }
  }
  ws?.done();
}
