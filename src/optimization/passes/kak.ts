import type { GateOp } from '../../circuits/ir.js';
import { g, PI, phaseGate } from '../gate-info.js';
import { cliffordTWords, equalUpToPhase2, mat1, mul2, phaseKey, runMatrix, zyz, type M2 } from '../su2.js';
import { equalUpToPhase4, eye4, factorLocal, interactionCoefficients, kakParts, kron2, localEquivalences, minimalCnots, mul4, toSU4, type C4, type KakParts } from '../su4.js';
import { viaCx } from './via-cx.js';

/**
 * Two-qubit synthesis with the fewest CNOTs (KAK): the count comes from the Makhlin-type
 * invariants of γ(U) (Shende, Markov, Bullock 2004); the circuit is a fixed CNOT core with
 * the block's interaction coefficients, joined to U by the local gates that the magic-basis
 * decompositions of both give. Every candidate is checked numerically (1e-9) before use.
 */
const I2: M2 = [1, 0, 0, 0, 0, 0, 1, 0];
/** Locals as Clifford+T words of up to 5 gates (longer ones could not beat the block anyway). */
const WORD_DEPTH = 5;
/** How closely a local must match a word or a phase gate to be written as one (the block check is 1e-9). */
const LOCAL_EPS = 1e-10;

/**
 * How the one-qubit runs of a synthesized block are written. `clifford-t`: phase gates by
 * multiples of π/4 and Clifford+T words only (no candidate when a run is neither), so a
 * Clifford+T block stays in Nam's gate set with its T gates visible. `generic`: one gate per
 * run (a u3 when nothing shorter fits), except that a run equal to a Clifford+T word with
 * T gates is written as that word, so a u3 never hides a T gate.
 */
export type LocalStyle = 'clifford-t' | 'generic';
const STYLES: readonly LocalStyle[] = ['clifford-t', 'generic'];

function perm4(f: (i: number) => number): C4 {
  const m = new Float64Array(32);
  for (let j = 0; j < 4; j++) m[(f(j) * 4 + j) * 2] = 1;
  return m;
}

function opMatrix(op: GateOp, pair: readonly [number, number]): C4 | undefined {
  const pos = op.qubits.map((q) => pair.indexOf(q));
  if (pos.some((p) => p < 0)) return undefined;
  if (op.qubits.length === 1) {
    const m = mat1(op);
    return m && (pos[0] === 0 ? kron2(m, I2) : kron2(I2, m));
  }
  if (op.qubits.length !== 2 || pos[0] === pos[1]) return undefined;
  if (op.name === 'cx') return perm4(pos[0] === 0 ? (i) => (i & 2 ? i ^ 1 : i) : (i) => (i & 1 ? i ^ 2 : i));
  if (op.name === 'swap') return perm4((i) => ((i & 1) << 1) | (i >> 1));
  const ex = viaCx(op);
  return ex && !ex.some((o) => o.name === op.name) ? blockMatrix(ex, pair) : undefined;
}

/** The 4×4 unitary of gates on `pair` (first qubit most significant), or undefined for an unknown gate. */
export function blockMatrix(ops: readonly GateOp[], pair: readonly [number, number]): C4 | undefined {
  let u = eye4();
  for (const op of ops) {
    const m = opMatrix(op, pair);
    if (!m) return undefined;
    u = mul4(m, u);
  }
  return u;
}

/** The shortest Clifford+T word for m, only if it reproduces m (the table's key rounds to 1e-6). */
function exactWord(m: M2): string[] | undefined {
  const w = cliffordTWords(WORD_DEPTH).get(phaseKey(m));
  return w && equalUpToPhase2(runMatrix(w.map((n) => g(n, [0])))!, m, LOCAL_EPS) ? w : undefined;
}

const isQuarter = (a: number) => Math.abs(a / (PI / 4) - Math.round(a / (PI / 4))) < LOCAL_EPS;

/** One 2×2 unitary as gates in the given style, or undefined when the style cannot write it. */
function emit1(m: M2, q: number, style: LocalStyle): GateOp[] | undefined {
  const [th, ph, la] = zyz(m);
  if (Math.abs(th) < 1e-12) {
    if (style === 'clifford-t' && !isQuarter(ph + la)) return undefined;
    const p = phaseGate(q, ph + la);
    return p ? [p] : [];
  }
  const word = exactWord(m);
  if (style === 'clifford-t') return word?.map((n) => g(n, [q]));
  if (word && (word.length <= 1 || word.some((n) => n === 't' || n === 'tdg'))) return word.map((n) => g(n, [q]));
  return [g('u3', [q], [th, ph, la])];
}

/** right-locals, core, left-locals in time order, each run of one-qubit gates merged and written in `style`. */
function assemble(pair: readonly [number, number], right: [M2, M2], core: readonly GateOp[], left: [M2, M2], style: LocalStyle): GateOp[] | undefined {
  const pending: [M2, M2] = [right[0], right[1]];
  const out: GateOp[] = [];
  const flush = (k: 0 | 1): boolean => {
    const ops = emit1(pending[k], pair[k], style);
    if (!ops) return false;
    out.push(...ops);
    pending[k] = I2;
    return true;
  };
  for (const op of core) {
    if (op.qubits.length === 1) {
      const k = pair.indexOf(op.qubits[0]!) as 0 | 1;
      const m = mat1(op);
      if (!m) return undefined;
      pending[k] = mul2(m, pending[k]);
    } else {
      if (!flush(0) || !flush(1)) return undefined;
      out.push(op);
    }
  }
  pending[0] = mul2(left[0], pending[0]);
  pending[1] = mul2(left[1], pending[1]);
  return flush(0) && flush(1) ? out : undefined;
}

const isWord = (m: M2) => exactWord(m) !== undefined;
const H2 = mat1(g('h', [0]))!;

/**
 * The one-CNOT gauge: (A0·Rz(α) ⊗ A1·Rx(β)) · CX · (Rz(−α)·B0 ⊗ Rx(−β)·B1) is the same unitary
 * (Rz on the control and Rx on the target commute with CX). The magic-basis locals carry an
 * arbitrary α, β; choosing them so that all four locals are Clifford+T words keeps a
 * Clifford+T block in Clifford+T. Candidates make one side's Euler angle a multiple of π/4.
 */
function cliffordGauge(l: [M2, M2], r: [M2, M2]): [[M2, M2], [M2, M2]] | undefined {
  const side = (a: M2, b: M2, rot: 'rz' | 'rx'): [M2, M2] | undefined => {
    const conj = (m: M2) => (rot === 'rx' ? mul2(H2, mul2(m, H2)) : m);
    // Rx(−β)·B = H·(Rz(−β)·HBH)·H: the X-Euler angles of B are the Z-Euler angles of HBH
    const ph = zyz(conj(b))[1];
    const la = zyz(conj(a))[2];
    for (let j = 0; j < 8; j++)
      for (const t of [ph - (j * PI) / 4, (j * PI) / 4 - la]) {
        const nb = mul2(conj(mat1(g('rz', [0], [-t]))!), b);
        const na = mul2(a, conj(mat1(g('rz', [0], [t]))!));
        if (isWord(na) && isWord(nb)) return [na, nb];
      }
    return undefined;
  };
  const q0 = side(l[0], r[0], 'rz');
  const q1 = q0 && side(l[1], r[1], 'rx');
  return q0 && q1
    ? [
        [q0[0], q1[0]],
        [q0[1], q1[1]],
      ]
    : undefined;
}

/** The CNOT core for k CNOTs, locally equivalent to exp(i(xXX + yYY + zZZ)). */
function coreFor(k: 1 | 2 | 3, [a, b]: readonly [number, number], coef: [number, number, number]): GateOp[] {
  if (k === 1) return [g('cx', [a, b])];
  if (k === 2) {
    // the coefficient nearest 0 (mod π/2) is dropped; exp(i(uXX + vYY)) takes two CNOTs
    const dist = (t: number) => Math.abs(t - Math.round(t / (PI / 2)) * (PI / 2));
    const drop = [0, 1, 2].reduce((best, i) => (dist(coef[i]!) < dist(coef[best]!) ? i : best), 0);
    const [u, v] = coef.filter((_, i) => i !== drop) as [number, number];
    return [g('rx', [a], [PI / 2]), g('cx', [a, b]), g('rx', [a], [-2 * u]), g('ry', [b], [-2 * v]), g('cx', [a, b]), g('rx', [a], [-PI / 2])];
  }
  const [x, y, z] = coef;
  return [
    g('rx', [a], [PI / 2]),
    g('cx', [a, b]),
    g('rx', [a], [-2 * x + PI / 2]),
    g('ry', [b], [-2 * y + PI / 2]),
    g('cx', [b, a]),
    g('rx', [b], [-PI / 2]),
    g('rz', [b], [-2 * z + PI / 2]),
    g('cx', [a, b]),
  ];
}

/** Candidate circuits with exactly k CNOTs (unchecked). */
function candidates(k: 0 | 1 | 2 | 3, su: C4, pu: KakParts | undefined, pair: readonly [number, number], styles: readonly LocalStyle[]): GateOp[][] {
  const out: GateOp[][] = [];
  const push = (c: GateOp[] | undefined) => c && out.push(c);
  if (k === 0) {
    const f = factorLocal(su);
    if (f) for (const s of styles) push(assemble(pair, f, [], [I2, I2], s));
    return out;
  }
  if (!pu) return out;
  const core = coreFor(k, pair, interactionCoefficients(pu));
  const v = blockMatrix(core, pair);
  const pv = v && kakParts(toSU4(v));
  if (!pv) return out;
  for (const { left, right } of localEquivalences(pu, pv)) {
    const l = factorLocal(left);
    const r = factorLocal(right);
    if (!l || !r) continue;
    for (const s of styles) {
      const gauged = s === 'clifford-t' && k === 1 && !(isWord(l[0]) && isWord(l[1]) && isWord(r[0]) && isWord(r[1])) ? cliffordGauge(l, r) : undefined;
      push(gauged ? assemble(pair, gauged[1], core, gauged[0], s) : assemble(pair, r, core, l, s));
    }
  }
  return out;
}

/**
 * Circuits for U with the fewest CNOTs, each checked to reproduce U within 1e-9 up to global
 * phase with the passes' own matrices (the certificate checker then compares again with its own).
 * The count comes from the invariants; when no circuit with that count checks (a tolerance
 * boundary, e.g. a nearly local block), the next count is tried. Empty when none checks.
 */
export function synthesize2q(u: C4, pair: readonly [number, number], styles: readonly LocalStyle[] = STYLES): { cnots: number; circuits: GateOp[][] } {
  const su = toSU4(u);
  const k0 = minimalCnots(su);
  const pu = kakParts(su);
  for (let k = k0; k <= 3; k++) {
    const circuits: GateOp[][] = [];
    const seen = new Set<string>();
    for (const c of candidates(k, su, pu, pair, styles)) {
      const key = JSON.stringify(c);
      if (seen.has(key)) continue;
      seen.add(key);
      const m = blockMatrix(c, pair);
      if (m && equalUpToPhase4(m, u, 1e-9)) circuits.push(c);
    }
    if (circuits.length > 0) return { cnots: k, circuits };
  }
  return { cnots: k0, circuits: [] };
}
