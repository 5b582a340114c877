import type { GateOp } from '../../circuits/ir.js';
import { g, PI, phaseGate, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { cliffordTWords, phaseKey, runMatrix, zyz } from '../su2.js';

const CLIFFORD_T = new Set(['h', 's', 'sdg', 't', 'tdg', 'z', 'x', 'id']);

/**
 * Clifford+T by value: merged phases are written rz(kπ/4) when no named gate fits (e.g. 3π/4).
 * A run of such gates is never folded into a u3, which would hide its T gates from the T-count
 * and leave Nam's gate set (docs/decisions/optimization-gate-counting.md).
 */
export function isCliffordT(op: GateOp): boolean {
  if (CLIFFORD_T.has(op.name)) return true;
  const a = phaseOf(op);
  return a !== undefined && Math.abs(a / (PI / 4) - Math.round(a / (PI / 4))) < 1e-9;
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
    if (word && word.length < ops.length) out = word.map((name) => g(name, [q]));
    else if (!word && ops.some((o) => !isCliffordT(o))) {
      const [th, ph, la] = zyz(m);
      if (Math.abs(th) < 1e-12) {
        const p = phaseGate(q, ph + la);
        out = p ? [p] : [];
      } else out = [g('u3', [q], [th, ph, la])];
      if (out.length >= ops.length) out = undefined;
    }
    if (out) {
      rec.apply('resynth-1q', run, out);
      n++;
    }
  }
  return n;
}

export { PI };
