import type { GateOp } from '../../circuits/ir.js';
import { EPS, g, PI, phaseGate, phaseOf } from '../gate-info.js';
import { FLOAT_NOISE } from '../../verification/numeric-policy.js';
import { flatDistance } from '../step-deviation.js';
import type { Recorder } from '../recorder.js';
import { cliffordTWords, phaseKey, runMatrix, zyz, type M2 } from '../su2.js';

const CLIFFORD_T = new Set(['h', 's', 'sdg', 't', 'tdg', 'z', 'x', 'id']);

/**
 * Clifford+T by value: merged phases are written rz(kπ/4) when no named gate fits (e.g. 3π/4).
 * A run of such gates is never folded into a u3, which would hide its T gates from the T-count
 * and leave Nam's gate set (docs/decisions/optimization-gate-counting.md).
 */
export function isCliffordT(op: GateOp): boolean {
  if (CLIFFORD_T.has(op.name)) return true;
  const a = phaseOf(op);
  return a !== undefined && Math.abs(a - Math.round(a / (PI / 4)) * (PI / 4)) <= EPS;
}

/** Whether gates reproduce m up to phase within the recorder's tolerance (or float noise once it is 0). */
export function withinTolerance(m: M2, ops: readonly GateOp[], tol: number): boolean {
  const n = runMatrix(ops);
  return !!n && flatDistance(m, n) <= Math.max(tol, FLOAT_NOISE);
}

/** Positions of the maximal run of one-qubit gates on q starting at i. */
export function runFrom(rec: Recorder, i: number): number[] {
  const op = rec.ops[i]!;
  if (op.kind !== 'gate' || op.qubits.length !== 1) return [];
  const q = op.qubits[0]!;
  const run = [i];
  for (let j = rec.nextOn(q, i + 1); j >= 0; j = rec.nextOn(q, j + 1)) {
    const o = rec.ops[j]!;
    if (o.kind !== 'gate' || o.qubits.length !== 1) break;
    run.push(j);
  }
  return run;
}

/**
 * Single-qubit run resynthesis: a run of one-qubit gates is replaced by a shorter
 * equivalent — the shortest Clifford+T word (≤ 3 gates) when the run is Clifford+T,
 * otherwise one u3 (generic target).
 */
export function resynthesizeRuns(rec: Recorder): number {
  let n = 0;
  const words = cliffordTWords();
  for (let i = 0; i < rec.ops.length && !rec.stopped(); i++) {
    const run = runFrom(rec, i);
    if (run.length < 2) continue;
    const ops = run.map((p) => rec.ops[p] as GateOp);
    const m = runMatrix(ops);
    if (!m) continue;
    const q = ops[0]!.qubits[0]!;
    let out: GateOp[] | undefined;
    const word = words.get(phaseKey(m));
    // the word table is keyed by a rounded matrix: a word is used only if it reproduces the run
    const exactWord =
      word &&
      withinTolerance(
        m,
        word.map((name) => g(name, [q])),
        rec.tol,
      )
        ? word
        : undefined;
    if (exactWord && exactWord.length < ops.length) out = exactWord.map((name) => g(name, [q]));
    else if (!exactWord && ops.some((o) => !isCliffordT(o))) {
      const [th, ph, la] = zyz(m);
      if (Math.abs(th) <= rec.tol) {
        const p = phaseGate(q, ph + la, 'named', rec.tol);
        out = p ? [p] : [];
      } else out = [g('u3', [q], [th, ph, la])];
      if (out.length >= ops.length || !withinTolerance(m, out, rec.tol)) out = undefined;
    }
    if (out) {
      rec.apply('resynth-1q', run, out);
      n++;
    }
  }
  return n;
}

export { PI };
