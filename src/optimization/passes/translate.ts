import type { GateOp } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { OPTIMIZATION_ERRORS } from '../error-codes.js';
import { g, PI, normAngle } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { runMatrix, zyz } from '../su2.js';
import { runFrom, withinTolerance } from './resynth-1q.js';
import { ccxCircuit, multiQubitCircuit } from './multi-qubit.js';
import { viaCx } from './via-cx.js';

/** CX in the target's two-qubit gate. */
function cxNative(op: GateOp, native: ReadonlySet<string>): GateOp[] | undefined {
  const [a, b] = op.qubits as [number, number];
  if (native.has('cx')) return [op];
  if (native.has('cz')) return [g('h', [b]), g('cz', [a, b]), g('h', [b])];
  if (native.has('rxx')) return [g('ry', [a], [PI / 2]), g('rxx', [a, b], [PI / 2]), g('rx', [a], [-PI / 2]), g('rx', [b], [-PI / 2]), g('ry', [a], [-PI / 2])];
  return undefined;
}

/**
 * One-qubit unitary in the target's native rotations, or undefined if none fits. Shortcuts (dropping a
 * rotation within `tol` of 0, one sx for θ ≈ π/2) are used only when the result still reproduces the run
 * within the recorder's tolerance; otherwise the general form, exact up to float noise.
 */
function synth1q(ops: readonly GateOp[], native: ReadonlySet<string>, tol: number): GateOp[] | undefined {
  const q = ops[0]!.qubits[0]!;
  const m = runMatrix(ops);
  if (!m || !native.has('rz')) return undefined;
  const [th, ph, la] = zyz(m);
  const forms = (eps: number): GateOp[] | undefined => {
    const near0 = (a: number) => Math.abs(normAngle(a)) <= eps;
    const rz = (a: number) => (near0(a) ? [] : [g('rz', [q], [normAngle(a)])]);
    if (near0(th)) return rz(ph + la);
    if (native.has('ry')) return [...rz(la), g('ry', [q], [th]), ...rz(ph)];
    if (native.has('rx')) return [...rz(la - PI / 2), g('rx', [q], [th]), ...rz(ph + PI / 2)];
    if (native.has('sx')) {
      if (native.has('x') && Math.abs(th - PI) <= eps) return [...rz(la + PI), g('x', [q]), ...rz(ph)];
      if (Math.abs(th - PI / 2) <= eps) return [...rz(la - PI / 2), g('sx', [q]), ...rz(ph + PI / 2)];
      return [...rz(la), g('sx', [q]), ...rz(th + PI), g('sx', [q]), ...rz(ph + PI)];
    }
    return undefined;
  };
  const short = forms(tol);
  return short && withinTolerance(m, short, tol) ? short : forms(0);
}

const unsupported = (name: string, native: ReadonlySet<string>) =>
  fail(OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED, `Gate ${name} has no translation to the native gates ${[...native].join(', ')}`, { gate: name, native_gates: [...native] });

/**
 * Gates on three or more qubits into CX + one-qubit gates, unless native: ccx and ccz by their proven
 * templates, every other one (cswap, rccx, rc3x, c3x, c3sqrtx, c4x) by `decompose-multi-qubit`.
 */
export function decomposeMultiQubit(rec: Recorder, native: ReadonlySet<string>): void {
  for (let i = 0; i < rec.ops.length; i++) {
    const op = rec.ops[i]!;
    if (op.kind !== 'gate' || op.qubits.length < 3 || native.has(op.name)) continue;
    if (op.name === 'ccx' || op.name === 'ccz') {
      const [a, b, c] = op.qubits as [number, number, number];
      const out = ccxCircuit(a, b, c);
      // CCZ is the Toffoli without the target's Hadamards (first and tenth gate)
      rec.apply(`template:${op.name}-decompose`, [i], op.name === 'ccx' ? out : out.filter((_, k) => k !== 0 && k !== 10));
      continue;
    }
    const out = multiQubitCircuit(op);
    if (!out) throw unsupported(op.name, native);
    rec.apply('decompose-multi-qubit', [i], out);
  }
}

/** Rewrites every gate into the native gate set; each step is a proven template or a checked resynthesis. */
export function translateGates(rec: Recorder, native: ReadonlySet<string>): void {
  decomposeMultiQubit(rec, native);
  // 2. two-qubit gates
  for (let i = 0; i < rec.ops.length; i++) {
    const op = rec.ops[i]!;
    if (op.kind !== 'gate' || op.qubits.length !== 2 || native.has(op.name)) continue;
    const cx = viaCx(op);
    if (!cx) throw unsupported(op.name, native);
    const out: GateOp[] = [];
    for (const o of cx) {
      if (o.name !== 'cx') out.push(o);
      else {
        const n = cxNative(o, native);
        if (!n) throw unsupported(op.name, native);
        out.push(...n);
      }
    }
    rec.apply('resynth-2q', [i], out);
    i += out.length - 1;
  }
  // 3. one-qubit runs that contain a non-native gate
  for (let i = 0; i < rec.ops.length; i++) {
    const op = rec.ops[i]!;
    if (op.kind !== 'gate' || op.qubits.length !== 1) continue;
    const run = runFrom(rec, i);
    const ops = run.map((p) => rec.ops[p] as GateOp);
    if (ops.every((o) => native.has(o.name))) continue;
    const out = synth1q(ops, native, rec.tol);
    if (!out) throw unsupported(ops.find((o) => !native.has(o.name))!.name, native);
    rec.apply('resynth-1q', run, out);
    i += out.length - 1;
  }
}
