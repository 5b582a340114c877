/**
 * Zero-noise extrapolation: noise amplified by global unitary folding, U → U (U† U)^k for an odd
 * scale factor λ = 2k + 1 (Giurgica-Tiron et al., arXiv:2005.10921), and the expectation values
 * measured at each scale extrapolated to λ = 0. Only odd integers are taken: each scale is a
 * whole circuit the device runs, with no partial folding to choose
 * (docs/decisions/execution-mitigation-zne.md). Pure: no I/O.
 */
import { barrier, circuit, type Circuit, type GateOp, type Operation } from '../../circuits/ir.js';

export type Extrapolation = 'linear' | 'richardson' | 'exponential';

const SELF_INVERSE = new Set(['id', 'u0', 'x', 'y', 'z', 'h', 'cx', 'cy', 'cz', 'ch', 'swap', 'ccx', 'ccz', 'cswap', 'c3x', 'c4x']);
const PAIRED: Readonly<Record<string, string>> = { s: 'sdg', sdg: 's', t: 'tdg', tdg: 't', sx: 'sxdg', sxdg: 'sx' };
/** Gates whose inverse is the same gate with every angle negated. */
const NEGATED = new Set(['rx', 'ry', 'rz', 'p', 'u1', 'crx', 'cry', 'crz', 'cu1', 'cp', 'rxx', 'ryy', 'rzz']);

/** The inverse of a gate as one gate of the catalogue, or null when there is none (csx, rccx, rc3x, c3sqrtx). */
export function inverseGate(g: GateOp): GateOp | null {
  const p = g.params;
  const make = (name: string, params: readonly number[]): GateOp => ({ kind: 'gate', name, qubits: g.qubits, params });
  if (SELF_INVERSE.has(g.name)) return make(g.name, p);
  const pair = PAIRED[g.name];
  if (pair !== undefined) return make(pair, p);
  if (NEGATED.has(g.name))
    return make(
      g.name,
      p.map((x) => -x),
    );
  // U(θ, φ, λ)† = U(−θ, −λ, −φ); u2(φ, λ) = U(π/2, φ, λ).
  if (g.name === 'u' || g.name === 'u3' || g.name === 'cu3') return make(g.name, [-p[0]!, -p[2]!, -p[1]!]);
  if (g.name === 'u2') return make('u3', [-Math.PI / 2, -p[1]!, -p[0]!]);
  if (g.name === 'cu') return make('cu', [-p[0]!, -p[2]!, -p[1]!, -p[3]!]);
  return null;
}

/** Whether a circuit can be folded: the gates without a one-gate inverse (empty when it can). */
export function unfoldableGates(c: Circuit): string[] {
  const out = new Set<string>();
  for (const op of c.ops) if (op.kind === 'gate' && inverseGate(op) === null) out.add(op.name);
  return [...out];
}

/**
 * The circuit with its unitary part folded to odd scale `scale`: the ops before the first
 * measurement (terminal measurements only: an expectation's circuits) are U, the rest stay at
 * the end. Barriers between the copies keep translation from merging a gate with its inverse.
 */
export function foldCircuit(c: Circuit, scale: number): Circuit {
  if (!Number.isInteger(scale) || scale < 1 || scale % 2 === 0) throw new Error(`scale ${scale} is not an odd positive integer`);
  if (scale === 1) return c;
  const firstMeasure = c.ops.findIndex((op) => op.kind === 'measure');
  const cut = firstMeasure < 0 ? c.ops.length : firstMeasure;
  const u = c.ops.slice(0, cut).filter((op): op is GateOp => op.kind === 'gate');
  const inv = [...u].reverse().map((g) => {
    const i = inverseGate(g);
    if (i === null) throw new Error(`gate ${g.name} has no inverse to fold with`);
    return i;
  });
  const all = Array.from({ length: c.numQubits }, (_, q) => q);
  const ops: Operation[] = [...c.ops.slice(0, cut)];
  for (let k = 0; k < (scale - 1) / 2; k++) ops.push(barrier(all), ...inv, barrier(all), ...u);
  ops.push(barrier(all), ...c.ops.slice(cut));
  return circuit(c.numQubits, c.numClbits, ops, c.metadata, { ...(c.quantumRegisters === undefined ? {} : { quantumRegisters: c.quantumRegisters }) });
}

export interface Extrapolated {
  readonly value: number | null;
  readonly stderr: number | null;
  /** Why there is no value (an exponential fit of values that change sign or touch zero). */
  readonly note?: string;
}

/** Least-squares weights w with Σ w_i y_i = intercept of a polynomial of `degree` through (x_i, y_i). */
function interceptWeights(x: readonly number[], degree: number): number[] {
  const n = x.length;
  const d = degree + 1;
  // Normal equations (XᵀX) c = Xᵀ y; intercept = e₀ᵀ (XᵀX)⁻¹ Xᵀ y, so w = X (XᵀX)⁻¹ e₀.
  const xtx = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => x.reduce((a, xi) => a + xi ** (i + j), 0)));
  const e0 = solve(
    xtx,
    Array.from({ length: d }, (_, i) => (i === 0 ? 1 : 0)),
  );
  return Array.from({ length: n }, (_, k) => e0.reduce((a, c, i) => a + c * x[k]! ** i, 0));
}

/** Gaussian elimination with partial pivoting (tiny systems: at most 5 × 5). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * The value at scale 0 from values measured at `scales` with standard errors `stderrs`:
 * linear — least-squares line; richardson — the polynomial of degree n−1 through every point;
 * exponential — a least-squares line through log|y| (y = a·e^(−bλ)), for values of one sign.
 * Linear and Richardson are linear in y (Σ wᵢyᵢ), so their standard error is √Σ wᵢ²σᵢ²; the
 * exponential one propagates σᵢ/|yᵢ| through the log fit (delta method).
 */
export function extrapolateToZero(scales: readonly number[], values: readonly number[], stderrs: readonly number[], method: Extrapolation): Extrapolated {
  if (method !== 'exponential') {
    const w = interceptWeights(scales, method === 'linear' ? 1 : scales.length - 1);
    const value = w.reduce((a, wi, i) => a + wi * values[i]!, 0);
    return { value, stderr: Math.sqrt(w.reduce((a, wi, i) => a + wi * wi * stderrs[i]! ** 2, 0)) };
  }
  const sign = Math.sign(values[0] ?? 0);
  if (sign === 0 || values.some((v) => Math.sign(v) !== sign)) return { value: null, stderr: null, note: 'an exponential fit needs values of one sign, none zero: use linear or richardson' };
  const w = interceptWeights(scales, 1);
  const logValue = w.reduce((a, wi, i) => a + wi * Math.log(Math.abs(values[i]!)), 0);
  const value = sign * Math.exp(logValue);
  const relVar = w.reduce((a, wi, i) => a + wi * wi * (stderrs[i]! / values[i]!) ** 2, 0);
  return { value, stderr: Math.abs(value) * Math.sqrt(relVar) };
}
