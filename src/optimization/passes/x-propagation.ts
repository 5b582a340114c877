import { commute, g, phaseGate, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { tryRewrite } from './gather.js';

/**
 * NOT-gate propagation (Nam et al. 2018, preprocessing): X gates move right through
 * CNOT targets (commute), CNOT controls (X_c CX = CX X_c X_t), phase gates (X D(θ) = D(−θ) X)
 * and Hadamards (X H = H Z), so that pairs meet and cancel. Run on a fork; kept only if it pays.
 */
export function propagateNots(rec: Recorder): number {
  let n = 0;
  for (let guard = 0; guard < 20 * rec.ops.length + 100 && !rec.stopped(); guard++) {
    let moved = false;
    for (let i = 0; i < rec.ops.length; i++) {
      const op = rec.ops[i]!;
      if (op.kind !== 'gate' || op.name !== 'x') continue;
      const q = op.qubits[0]!;
      const j = rec.nextOn(q, i + 1);
      if (j < 0) continue;
      const nx = rec.ops[j]!;
      if (nx.kind !== 'gate') continue;
      let ok = false;
      if (nx.name === 'x') ok = tryRewrite(rec, 'cancel-inverse', [i, j], []);
      else if (nx.name === 'cx' && nx.qubits[0] === q) ok = tryRewrite(rec, 'template:x-cx-control', [i, j], [g('cx', nx.qubits), g('x', [q]), g('x', [nx.qubits[1]!])]);
      else if (nx.name === 'h') ok = tryRewrite(rec, 'template:x-h', [i, j], [g('h', [q]), g('z', [q])]);
      else if (phaseOf(nx) !== undefined) {
        const flipped = phaseGate(q, -phaseOf(nx)!) ?? g('rz', [q], [0]);
        ok = tryRewrite(rec, 'x-phase-flip', [i, j], [flipped, g('x', [q])]);
      } else if (commute(op, nx)) ok = tryRewrite(rec, 'commute-swap', [i, j], [nx, op]);
      if (ok) {
        moved = true;
        n++;
      }
    }
    if (!moved) break;
  }
  return n;
}
