import { circuit, gate, type Circuit, type GateOp } from '../circuits/ir.js';

/**
 * Whether the measured mode can cover a circuit, and the unitary circuit it simulates.
 *
 * Covered: gates on |0…0⟩, optionally followed by terminal measurements (the measured
 * quantities describe the state just before them), barriers anywhere, and resets of qubits
 * nothing has touched yet (a no-op on |0⟩, as OpenQASM programs often start with them).
 * Not covered: a measured qubit used again (mid-circuit measurement), any other reset, a gate
 * conditioned on measured bits (a dynamic circuit), or
 * more active qubits than the limit. Qubits no gate touches stay exactly |0⟩, are product
 * with everything, and are left out of the simulation (so a routed circuit on a large
 * device with idle wires stays measurable); the limit counts the qubits gates act on.
 */

export type FallbackReasonCode = 'TOO_MANY_QUBITS' | 'MID_CIRCUIT_MEASUREMENT' | 'RESET' | 'DYNAMIC_CIRCUIT' | 'TIME_BUDGET_EXCEEDED' | 'SIMULATION_UNAVAILABLE';

export const FALLBACK_REASON_CODES: readonly FallbackReasonCode[] = ['TOO_MANY_QUBITS', 'MID_CIRCUIT_MEASUREMENT', 'RESET', 'DYNAMIC_CIRCUIT', 'TIME_BUDGET_EXCEEDED', 'SIMULATION_UNAVAILABLE'];

export interface OutOfScope {
  readonly ok: false;
  readonly reason_code: FallbackReasonCode;
  readonly reason: string;
}

export interface MeasuredPlan {
  readonly ok: true;
  /** Qubits some gate acts on, ascending; qubit active[k] is qubit k of `unitary`. */
  readonly active: readonly number[];
  /** The gates only, on the active qubits relabelled 0..k−1. */
  readonly unitary: Circuit;
}

export function planMeasured(c: Circuit, maxQubits: number): MeasuredPlan | OutOfScope {
  const touched = new Array<boolean>(c.numQubits).fill(false);
  const measuredAt = new Array<number>(c.numQubits).fill(-1);
  const gates: GateOp[] = [];
  for (let i = 0; i < c.ops.length; i++) {
    const op = c.ops[i]!;
    switch (op.kind) {
      case 'barrier':
        break;
      case 'reset':
        if (touched[op.qubit] === true) {
          return {
            ok: false,
            reason_code: 'RESET',
            reason: `Operation ${i} resets qubit ${op.qubit} after it was used; a reset is not unitary, so the circuit has no single final pure state to measure.`,
          };
        }
        break;
      case 'measure':
        touched[op.qubit] = true;
        if (measuredAt[op.qubit] === -1) measuredAt[op.qubit] = i;
        break;
      case 'conditioned':
        // whether the gate runs depends on a measured bit: the final state is a mixture, not one pure state
        return {
          ok: false,
          reason_code: 'DYNAMIC_CIRCUIT',
          reason: `Operation ${i} (${op.gate.name}) is conditioned on measured bits; the measured mode needs one final pure state, which a dynamic circuit does not have.`,
        };
      case 'gate':
        for (const q of op.qubits) {
          if (measuredAt[q]! >= 0) {
            return {
              ok: false,
              reason_code: 'MID_CIRCUIT_MEASUREMENT',
              reason: `Qubit ${q} is measured at operation ${measuredAt[q]} and used again by operation ${i} (${op.name}); the measured mode covers terminal measurements only.`,
            };
          }
          touched[q] = true;
        }
        gates.push(op);
        break;
    }
  }
  const activeSet = new Set<number>();
  for (const g of gates) for (const q of g.qubits) activeSet.add(q);
  const active = [...activeSet].sort((x, y) => x - y);
  if (active.length > maxQubits) {
    return {
      ok: false,
      reason_code: 'TOO_MANY_QUBITS',
      reason: `Gates act on ${active.length} qubits; the measured mode simulates at most ${maxQubits} (COUPLING_MEASURED_MAX_QUBITS).`,
    };
  }
  const index = new Map(active.map((q, k) => [q, k] as const));
  const unitary = circuit(
    active.length,
    0,
    gates.map((g) =>
      gate(
        g.name,
        g.qubits.map((q) => index.get(q)!),
        g.params,
      ),
    ),
  );
  return { ok: true, active, unitary };
}

/**
 * A deliberately optimistic estimate of the measured mode's run time (ms), so that it only
 * refuses work that cannot fit in the budget on any reasonable machine; the run itself is
 * also stopped at the deadline. Per amplitude: 0.1 ns per gate (a cache-blocked, fused
 * simulator), 0.5 ns per qubit pass and 0.5 ns per pair pass (bench/coupling.ts measures
 * ~2 ns per pair pass on a quiet 2-core machine).
 */
export function estimateMeasuredMs(activeQubits: number, gates: number, pairs: number): number {
  const amps = 2 ** activeQubits;
  return (amps * (0.1 * gates + 0.5 * activeQubits + 0.5 * pairs)) / 1e6;
}
