/**
 * Column orthonormalisation for the QR steps that move the MPS orthogonality centre (mps-state.ts):
 * classical Gram–Schmidt applied twice, which is orthogonal to machine precision for the
 * well-conditioned and the rank-deficient site matrices alike.
 */

/**
 * Orthonormalises q columns of length m stored contiguously (column j at j·m) in place, Gram–Schmidt
 * twice; a column dependent on the earlier ones becomes zero.
 */
export function orthonormaliseColumns(m: number, q: number, re: Float64Array, im: Float64Array): void {
  for (let j = 0; j < q; j++) {
    const oj = j * m;
    let n0 = 0;
    for (let i = 0; i < m; i++) n0 += re[oj + i]! * re[oj + i]! + im[oj + i]! * im[oj + i]!;
    for (let pass = 0; pass < 2; pass++)
      for (let c = 0; c < j; c++) {
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
        for (let i = 0; i < m; i++) {
          const ur = re[oc + i]!;
          const ui = im[oc + i]!;
          re[oj + i]! -= dr * ur - di * ui;
          im[oj + i]! -= dr * ui + di * ur;
        }
      }
    let n1 = 0;
    for (let i = 0; i < m; i++) n1 += re[oj + i]! * re[oj + i]! + im[oj + i]! * im[oj + i]!;
    const inv = n1 > 1e-24 * n0 && n1 > 0 ? 1 / Math.sqrt(n1) : 0;
    for (let i = 0; i < m; i++) {
      re[oj + i]! *= inv;
      im[oj + i]! *= inv;
    }
  }
}
