import type { GateOp, Operation } from '../circuits/ir.js';
import { addAngles, rotationDistance } from '../verification/numeric-policy.js';
import { phaseOf, ROT_PERIOD } from './gate-info.js';
import { blockMatrix } from './passes/kak.js';
import { mat1, runMatrix } from './su2.js';

/**
 * min over φ of ‖a − e^{iφ}b‖_F for matrices stored as row-major (re, im) pairs (M2 or C4): an upper
 * bound of the operator-norm distance up to phase, the measure numeric-policy.ts counts.
 */
export function flatDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let tr = 0;
  let ti = 0;
  for (let i = 0; i < a.length; i += 2) {
    tr += b[i]! * a[i]! + b[i + 1]! * a[i + 1]!;
    ti += b[i]! * a[i + 1]! - b[i + 1]! * a[i]!;
  }
  const n = Math.hypot(tr, ti);
  const [pr, pi] = n === 0 ? [1, 0] : [tr / n, ti / n];
  let sum = 0;
  for (let i = 0; i < a.length; i += 2) {
    const dr = a[i]! - (pr * b[i]! - pi * b[i + 1]!);
    const di = a[i + 1]! - (pr * b[i + 1]! + pi * b[i]!);
    sum += dr * dr + di * di;
  }
  return Math.sqrt(sum);
}

const gates = (ops: readonly Operation[]): GateOp[] | undefined => (ops.every((o) => o.kind === 'gate') ? (ops as GateOp[]) : undefined);

/**
 * The passes' own estimate of how far a local step moves the circuit (0 for exact rules), computed as
 * the checker will measure it (numeric-policy.ts) but with the passes' matrices. The recorder adds
 * these up so the certificate never exceeds its budget.
 */
export function stepDeviation(rule: string, replaced: readonly Operation[], inserted: readonly GateOp[]): number {
  const lhs = gates(replaced);
  if (!lhs) return 0;
  const [a, b] = lhs;
  switch (rule) {
    case 'merge-phase': {
      const x = a && phaseOf(a);
      const y = b && phaseOf(b);
      const z = inserted[0] ? phaseOf(inserted[0]) : 0;
      return x === undefined || y === undefined || z === undefined ? 0 : rotationDistance(addAngles(x, y), z);
    }
    case 'rename-phase': {
      const x = a && phaseOf(a);
      const y = inserted[0] && phaseOf(inserted[0]);
      return x === undefined || y === undefined ? 0 : rotationDistance(x, y);
    }
    case 'merge-rotation': {
      const per = a && ROT_PERIOD[a.name];
      const r = inserted[0];
      return per === undefined || !a || !b || !r ? 0 : rotationDistance(addAngles(a.params[0]!, b.params[0]!, per), r.params[0]!, per);
    }
    case 'drop-identity': {
      if (!a) return 0;
      const ph = phaseOf(a);
      if (ph !== undefined) return rotationDistance(ph, 0);
      const per = ROT_PERIOD[a.name];
      if (per !== undefined) return rotationDistance(a.params[0]!, 0, per);
      const m = a.qubits.length === 1 ? mat1(a) : undefined;
      return m ? flatDistance(m, [1, 0, 0, 0, 0, 0, 1, 0]) : 0;
    }
    case 'x-phase-flip': {
      const x = b && phaseOf(b);
      const y = inserted[0] && phaseOf(inserted[0]);
      return x === undefined || y === undefined ? 0 : rotationDistance(x, -y);
    }
    case 'resynth-1q': {
      const m = runMatrix(lhs);
      const n = runMatrix(inserted);
      return m && n ? flatDistance(m, n) : 0;
    }
    case 'resynth-2q': {
      const qs = [...new Set(lhs.flatMap((o) => o.qubits))];
      if (qs.length !== 2) return 0;
      const pair = qs as [number, number];
      const m = blockMatrix(lhs, pair);
      const n = blockMatrix(inserted, pair);
      return m && n ? flatDistance(m, n) : 0;
    }
    default:
      return 0;
  }
}
