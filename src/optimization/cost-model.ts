import type { Circuit, GateOp, Operation } from '../circuits/ir.js';
import { ccxCircuit, multiQubitCircuit } from './passes/multi-qubit.js';
import { viaCx } from './passes/via-cx.js';
import { normAngle, PI } from './gate-info.js';
import { runMatrix, zyz } from './su2.js';

/**
 * How a result's size is counted (docs/optimizer.md, "Cost models"):
 * - `native`: the output is already in the target's gate set (a provider or a device): one per gate;
 * - `nam`: Nam et al.'s gate set {h, rz, x, cx}, every other gate decomposed as such a target would
 *   (a `u3` is rz·h·rz·h·rz less its zero rotations; a `cz` is h·cx·h; a `ccx` its 15-gate template).
 * The generic target names no gate set: its results are ranked in `nam`, the set published tables use.
 */
export type CostModel = 'native' | 'nam';

const NAM_NATIVE = new Set(['h', 'rz', 'x', 'cx']);
/** One-qubit gates that are a single z-rotation up to global phase. */
const Z_LIKE = new Set(['rz', 'p', 'u1', 't', 'tdg', 's', 'sdg', 'z']);
/**
 * An angle this close to 0 (or θ to π/2, π) is rounding noise of the matrix → angles conversion
 * (~1e-15), not a rotation. It must stay far below real angles: product formulas over many steps
 * rotate by 1e-10 rad and less (Nam et al.'s PF1 at 50+ qubits), and a 1e-9 tolerance counted
 * every such rotation that shares a run with an H as no gate at all.
 */
const ANGLE_EPS = 1e-12;

/** Gates {h, rz, x, cx} for one run of one-qubit gates, the cheaper of gate-by-gate and resynthesized. */
function runCost(run: readonly GateOp[]): number {
  let each = 0;
  for (const op of run) each += oneQubitCost(op);
  if (run.length <= 1 || each <= 1) return each;
  const m = runMatrix(run);
  return m ? Math.min(each, unitaryCost(zyz(m))) : each;
}

function oneQubitCost(op: GateOp): number {
  if (NAM_NATIVE.has(op.name) || Z_LIKE.has(op.name)) return 1;
  if (op.name === 'id' || op.name === 'u0') return 0;
  if (op.name === 'y') return 2; // x·rz(π)
  if (op.name === 'rx' || op.name === 'sx' || op.name === 'sxdg') return 3; // h·rz·h
  const m = runMatrix([op]);
  return m ? unitaryCost(zyz(m)) : 5;
}

const zero = (a: number) => Math.abs(normAngle(a)) <= ANGLE_EPS;

/** u3(θ, φ, λ) in {h, rz, x}: rz(λ) alone, x between two rz's, rz·h·rz for θ = π/2, else rz·h·rz·h·rz. */
function unitaryCost([th, ph, la]: [number, number, number]): number {
  const rz = (a: number) => (zero(a) ? 0 : 1);
  if (zero(th)) return rz(ph + la);
  if (Math.abs(Math.abs(normAngle(th)) - PI) <= ANGLE_EPS) return 1 + rz(la - ph + PI);
  if (Math.abs(normAngle(th) - PI / 2) <= ANGLE_EPS) return 1 + rz(ph) + rz(la + PI);
  // φ and λ alone come from the matrix with an error ~1e-16 / sin(θ/2) (su2.zyz); moving them by δ moves
  // the matrix by sin(θ/2)·δ, so within that bound they are exact to rounding, not a rotation
  const tol = Math.max(ANGLE_EPS, 1e-14 / Math.abs(Math.sin(th / 2)));
  const rzOf = (a: number) => (Math.abs(normAngle(a)) <= tol ? 0 : 1);
  return 3 + rzOf(ph + PI / 2) + rzOf(la - PI / 2);
}

/** The gate count in Nam's gate set {h, rz, x, cx}. */
export function namGateCount(ops: readonly Operation[]): number {
  let total = 0;
  const pending = new Map<number, GateOp[]>();
  const flush = (q: number) => {
    const run = pending.get(q);
    if (run && run.length > 0) total += runCost(run);
    pending.delete(q);
  };
  const visit = (op: GateOp): void => {
    if (op.qubits.length === 1) {
      const q = op.qubits[0]!;
      pending.set(q, [...(pending.get(q) ?? []), op]);
      return;
    }
    const expanded =
      op.name === 'cx'
        ? undefined
        : op.qubits.length === 2
          ? viaCx(op)
          : op.name === 'ccx'
            ? ccxCircuit(op.qubits[0]!, op.qubits[1]!, op.qubits[2]!)
            : op.name === 'ccz'
              ? ccxCircuit(op.qubits[0]!, op.qubits[1]!, op.qubits[2]!).filter((_, k) => k !== 0 && k !== 10)
              : multiQubitCircuit(op);
    if (expanded && !(expanded.length === 1 && expanded[0]!.name === op.name)) {
      for (const e of expanded) visit(e);
      return;
    }
    for (const q of op.qubits) flush(q);
    // a gate with no known decomposition counts as one (none in the catalogue reaches here)
    total += 1;
  };
  for (const o of ops) {
    if (o.kind === 'gate') visit(o);
    else if (o.kind === 'conditioned') {
      for (const q of o.gate.qubits) flush(q);
      total += 1;
    } else if (o.kind === 'measure' || o.kind === 'reset') flush(o.qubit);
    else if (o.kind === 'barrier') for (const q of o.qubits) flush(q);
  }
  for (const q of [...pending.keys()]) flush(q);
  return total;
}

/** The result's size as the target counts it, and the model's name. */
export function targetCost(c: Circuit, native: ReadonlySet<string> | null): { cost_model: CostModel; target_total: number } {
  if (native !== null) return { cost_model: 'native', target_total: c.ops.filter((o) => o.kind === 'gate' || o.kind === 'conditioned').length };
  return { cost_model: 'nam', target_total: namGateCount(c.ops) };
}
