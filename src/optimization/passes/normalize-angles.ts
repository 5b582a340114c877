import type { GateOp } from '../../circuits/ir.js';
import { ANGLE_PRECISION_LIMIT, reduceAngle } from '../../verification/numeric-policy.js';
import { g, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';

const TAU = 2 * Math.PI;

/**
 * Each parameter's period in turns of 2π: up to global phase for gates never controlled here
 * (rz(θ + 2π) = −rz(θ)), exactly for the controlled rotations, whose θ repeats only after 4π.
 */
const PERIODS: Readonly<Record<string, readonly (1 | 2)[]>> = {
  rx: [1],
  ry: [1],
  rz: [1],
  p: [1],
  u1: [1],
  u0: [1],
  u2: [1, 1],
  u3: [1, 1, 1],
  u: [1, 1, 1],
  rxx: [1],
  ryy: [1],
  rzz: [1],
  cp: [1],
  cu1: [1],
  crx: [2],
  cry: [2],
  crz: [2],
  cu3: [2, 1, 1],
  cu: [2, 1, 1, 1],
};

/** Parameters beyond this are reduced before any pass adds them to others (sums of huge doubles lose the result). */
const REDUCE_ABOVE = 2 * TAU;

/**
 * Rewrites every gate with a parameter of magnitude above 4π into the same gate with that parameter
 * reduced exactly modulo its period (numeric-policy.ts): a phase gate by `rename-phase`, others by
 * `resynth-1q` / `resynth-2q` (the checker compares the matrices). Returns the number of rewrites.
 */
export function normalizeAngles(rec: Recorder): number {
  let n = 0;
  for (let i = 0; i < rec.ops.length; i++) {
    const op = rec.ops[i]!;
    const periods = op.kind === 'gate' ? PERIODS[op.name] : undefined;
    if (op.kind !== 'gate' || !periods || !op.params.some((p) => Math.abs(p) > REDUCE_ABOVE)) continue;
    const params = op.params.map((p, k) => (Math.abs(p) > REDUCE_ABOVE ? reduceAngle(p, periods[k]! * TAU) : p));
    const out: GateOp = g(op.name, op.qubits, params);
    const rule = phaseOf(op) !== undefined ? 'rename-phase' : op.qubits.length === 1 ? 'resynth-1q' : 'resynth-2q';
    rec.apply(rule, [i], [out]);
    n++;
  }
  return n;
}

/** How many gate parameters exceed ANGLE_PRECISION_LIMIT (their doubles are coarser than the proof tolerance). */
export function impreciseAngles(ops: readonly { kind: string; params?: readonly number[] }[]): number {
  let n = 0;
  for (const op of ops) if (op.kind === 'gate') for (const p of op.params ?? []) if (Math.abs(p) >= ANGLE_PRECISION_LIMIT) n++;
  return n;
}
