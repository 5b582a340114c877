/**
 * Pure circuit analysis, in the wire shape of POST /v1/circuits/analyze (snake_case).
 *
 * T-count: every `t` and `tdg` counts 1; `rz`, `p`, `u1` whose angle is an odd multiple of
 * pi/4 (within 1e-9 rad) count 1 too, since they equal T or T† times a Clifford up to global
 * phase. Other non-Clifford rotations are not T gates and are counted in
 * `non_clifford_rotations` instead.
 */
import { circuitDepth } from '../depth.js';
import { opQubits, type Circuit } from '../ir.js';
import { providerCompatibility, type CompatDevice, type ProviderCompatibility } from './compatibility.js';
import { interactionComponents, lightConePairs } from './entanglement.js';

export const ANGLE_EPSILON = 1e-9;

export interface MeasurementEntry {
  readonly qubit: number;
  readonly clbit: number;
  readonly terminal: boolean;
}

export interface InteractionEdge {
  readonly qubits: [number, number];
  /** How many multi-qubit operations act on both. */
  readonly weight: number;
}

/**
 * What the caller learned from the final state (computed outside, since circuits does not
 * depend on the simulator): the pairs whose two-qubit state is entangled and the pairs that
 * are correlated at all, or why the circuit is out of scope.
 */
export type EntangledPairsResult = { readonly pairs: [number, number][]; readonly correlated: [number, number][]; readonly method: string } | { readonly pairs: undefined; readonly reason: string };

export interface EntanglementReport {
  readonly components: number[][];
  readonly possibly_entangled_pairs: [number, number][];
  readonly entangled_pairs: [number, number][] | null;
  readonly correlated_pairs: [number, number][] | null;
  readonly entangled_pairs_method: string | null;
  readonly entangled_pairs_unavailable_reason: string | null;
}

export interface CircuitAnalysis {
  readonly num_qubits: number;
  readonly num_clbits: number;
  readonly qubits_used: number[];
  readonly num_qubits_used: number;
  readonly depth: number;
  readonly operation_count: number;
  readonly gate_count: number;
  /** Gates applied only when a condition on measured bits holds (included in gate_count). */
  readonly conditioned_gate_count: number;
  /** Whether the circuit is dynamic (has a conditioned gate). */
  readonly dynamic: boolean;
  readonly counts_by_kind: Record<string, number>;
  readonly single_qubit_count: number;
  readonly two_qubit_count: number;
  readonly multi_qubit_count: number;
  readonly t_count: number;
  readonly non_clifford_rotations: number;
  readonly measurement_count: number;
  readonly measurements: MeasurementEntry[];
  readonly interaction_graph: { readonly nodes: number[]; readonly edges: InteractionEdge[] };
  readonly compatibility: ProviderCompatibility[];
  readonly entanglement: EntanglementReport;
}

export interface AnalyzeOptions {
  readonly devices?: readonly CompatDevice[];
  readonly entangledPairs?: EntangledPairsResult;
}

/** Classifies a Z-rotation angle: T-like (odd multiple of pi/4), Clifford (multiple of pi/2) or other. */
export function zRotationKind(angle: number): 't' | 'clifford' | 'other' {
  const k = angle / (Math.PI / 4);
  const r = Math.round(k);
  if (Math.abs(k - r) * (Math.PI / 4) > ANGLE_EPSILON) return 'other';
  return r % 2 === 0 ? 'clifford' : 't';
}

const Z_ROTATIONS = new Set(['rz', 'p', 'u1']);
const OTHER_ROTATIONS = new Set(['rx', 'ry', 'u', 'u2', 'u3', 'crx', 'cry', 'crz', 'cp', 'cu1', 'cu3', 'cu', 'rxx', 'ryy', 'rzz']);

export function tCount(c: Circuit): { t: number; nonClifford: number } {
  let t = 0;
  let nonClifford = 0;
  for (const o of c.ops) {
    // a conditioned gate counts: whether it runs depends on the shot, the resources must not
    const op = o.kind === 'conditioned' ? o.gate : o;
    if (op.kind !== 'gate') continue;
    if (op.name === 't' || op.name === 'tdg') t++;
    else if (Z_ROTATIONS.has(op.name)) {
      const kind = zRotationKind(op.params[0] ?? 0);
      if (kind === 't') t++;
      else if (kind === 'other') nonClifford++;
    } else if (OTHER_ROTATIONS.has(op.name)) nonClifford++;
  }
  return { t, nonClifford };
}

export function analyzeCircuit(c: Circuit, options: AnalyzeOptions = {}): CircuitAnalysis {
  const counts: Record<string, number> = {};
  const used = new Set<number>();
  let single = 0;
  let two = 0;
  let multi = 0;
  let gates = 0;
  let conditionedGates = 0;
  const edges = new Map<string, InteractionEdge & { weight: number }>();
  const measurements: MeasurementEntry[] = [];
  const lastTouch = new Map<number, number>();
  c.ops.forEach((op, i) => {
    if (op.kind !== 'barrier') for (const q of opQubits(op)) lastTouch.set(q, i);
  });
  c.ops.forEach((o, i) => {
    if (o.kind === 'conditioned') conditionedGates++;
    // a conditioned gate is counted as its gate (by name, in gate_count and the interaction graph)
    const op = o.kind === 'conditioned' ? o.gate : o;
    const kind = op.kind === 'gate' ? op.name : op.kind;
    counts[kind] = (counts[kind] ?? 0) + 1;
    if (op.kind === 'barrier') return;
    if (op.kind === 'measure') {
      used.add(op.qubit);
      measurements.push({ qubit: op.qubit, clbit: op.clbit, terminal: lastTouch.get(op.qubit) === i });
      return;
    }
    if (op.kind === 'reset') {
      used.add(op.qubit);
      return;
    }
    gates++;
    op.qubits.forEach((q) => used.add(q));
    if (op.qubits.length === 1) single++;
    else if (op.qubits.length === 2) two++;
    else multi++;
    for (let a = 0; a < op.qubits.length; a++) {
      for (let b = a + 1; b < op.qubits.length; b++) {
        const x = Math.min(op.qubits[a]!, op.qubits[b]!);
        const y = Math.max(op.qubits[a]!, op.qubits[b]!);
        const key = `${x},${y}`;
        const e = edges.get(key);
        if (e) e.weight++;
        else edges.set(key, { qubits: [x, y], weight: 1 });
      }
    }
  });
  const sortedCounts: Record<string, number> = {};
  for (const k of Object.keys(counts).sort()) sortedCounts[k] = counts[k]!;
  const qubitsUsed = [...used].sort((a, b) => a - b);
  const { t, nonClifford } = tCount(c);
  const probe = options.entangledPairs;
  return {
    num_qubits: c.numQubits,
    num_clbits: c.numClbits,
    qubits_used: qubitsUsed,
    num_qubits_used: qubitsUsed.length,
    depth: circuitDepth(c),
    operation_count: c.ops.length,
    gate_count: gates,
    conditioned_gate_count: conditionedGates,
    dynamic: conditionedGates > 0,
    counts_by_kind: sortedCounts,
    single_qubit_count: single,
    two_qubit_count: two,
    multi_qubit_count: multi,
    t_count: t,
    non_clifford_rotations: nonClifford,
    measurement_count: measurements.length,
    measurements,
    interaction_graph: {
      nodes: qubitsUsed,
      edges: [...edges.values()].sort((p, q) => p.qubits[0] - q.qubits[0] || p.qubits[1] - q.qubits[1]),
    },
    compatibility: providerCompatibility(c, options.devices ?? []),
    entanglement: {
      components: interactionComponents(c),
      possibly_entangled_pairs: lightConePairs(c),
      entangled_pairs: probe?.pairs ?? null,
      correlated_pairs: probe !== undefined && probe.pairs !== undefined ? probe.correlated : null,
      entangled_pairs_method: probe !== undefined && probe.pairs !== undefined ? probe.method : null,
      entangled_pairs_unavailable_reason:
        probe === undefined ? 'exact entanglement needs the state-vector simulator, which is not available to this analysis' : probe.pairs === undefined ? probe.reason : null,
    },
  };
}
