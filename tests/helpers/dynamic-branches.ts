import type { Circuit } from '../../src/circuits/ir.js';
import { embed, gateMatrix } from '../../src/verification/gate-matrices.js';

/**
 * An evaluator of dynamic circuits for tests, independent of the simulator: every branch of
 * every measurement is enumerated exactly (a conditioned gate applies in a branch iff its clbits
 * there hold its value), and for each final classical record the (unnormalised) density matrix of
 * the qubits is summed over the branches that end with it. Two circuits do the same thing iff
 * these agree for every record: global phases cancel, everything observable is compared.
 */
export type Dens = Map<number, { re: Float64Array; im: Float64Array }>;

function apply(re: Float64Array, im: Float64Array, name: string, params: readonly number[], qubits: readonly number[], n: number): void {
  const m = embed(gateMatrix(name, params)!, qubits, n);
  const d = 1 << n;
  const r2 = new Float64Array(d);
  const i2 = new Float64Array(d);
  for (let r = 0; r < d; r++) {
    for (let c = 0; c < d; c++) {
      const a = m.re[r * d + c]!;
      const b = m.im[r * d + c]!;
      r2[r] = r2[r]! + a * re[c]! - b * im[c]!;
      i2[r] = i2[r]! + a * im[c]! + b * re[c]!;
    }
  }
  re.set(r2);
  im.set(i2);
}

export function branches(c: Circuit): Dens {
  const n = c.numQubits;
  const d = 1 << n;
  const out: Dens = new Map();
  const run = (re: Float64Array, im: Float64Array, from: number, bits: number) => {
    for (let i = from; i < c.ops.length; i++) {
      const op = c.ops[i]!;
      if (op.kind === 'barrier') continue;
      if (op.kind === 'gate') {
        apply(re, im, op.name, op.params, op.qubits, n);
        continue;
      }
      if (op.kind === 'conditioned') {
        const v = op.condition.clbits.reduce((s, b, k) => s + ((bits >> b) & 1) * 2 ** k, 0);
        if (v === op.condition.value) apply(re, im, op.gate.name, op.gate.params, op.gate.qubits, n);
        continue;
      }
      const sh = n - 1 - op.qubit;
      for (const bit of [0, 1]) {
        const r2 = new Float64Array(d);
        const i2 = new Float64Array(d);
        let norm = 0;
        for (let x = 0; x < d; x++) {
          if (((x >> sh) & 1) !== bit) continue;
          const y = op.kind === 'reset' ? x & ~(1 << sh) : x;
          r2[y] = re[x]!;
          i2[y] = im[x]!;
          norm += re[x]! ** 2 + im[x]! ** 2;
        }
        if (norm < 1e-14) continue;
        run(r2, i2, i + 1, op.kind === 'measure' ? (bits & ~(1 << op.clbit)) | (bit << op.clbit) : bits);
      }
      return;
    }
    const rho = out.get(bits) ?? { re: new Float64Array(d * d), im: new Float64Array(d * d) };
    for (let r = 0; r < d; r++) {
      for (let s = 0; s < d; s++) {
        rho.re[r * d + s] = rho.re[r * d + s]! + re[r]! * re[s]! + im[r]! * im[s]!;
        rho.im[r * d + s] = rho.im[r * d + s]! + im[r]! * re[s]! - re[r]! * im[s]!;
      }
    }
    out.set(bits, rho);
  };
  const re = new Float64Array(d);
  re[0] = 1;
  run(re, new Float64Array(d), 0, 0);
  return out;
}

export function distance(a: Dens, b: Dens): number {
  let worst = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k);
    const y = b.get(k);
    const len = (x ?? y)!.re.length;
    for (let i = 0; i < len; i++) {
      worst = Math.max(worst, Math.abs((x?.re[i] ?? 0) - (y?.re[i] ?? 0)), Math.abs((x?.im[i] ?? 0) - (y?.im[i] ?? 0)));
    }
  }
  return worst;
}

/** The probability of each final classical record (the trace of its density matrix). */
export function recordProbabilities(d: Dens): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, rho] of d) {
    const dim = Math.round(Math.sqrt(rho.re.length));
    let p = 0;
    for (let i = 0; i < dim; i++) p += rho.re[i * dim + i]!;
    out.set(k, p);
  }
  return out;
}
