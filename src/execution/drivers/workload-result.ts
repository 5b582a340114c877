/**
 * A workload run's result as stored with the job: a plain run keeps the counts shape of
 * before (with memory, statevector, expectation beside it when asked); a sweep has one entry
 * per point under `points`, each with the values it was run at. `registers` gives the
 * classical register layout when the circuit has several (keys are then split by a space,
 * the last register leftmost, as Qiskit prints them).
 */
import { splitsCounts, type Circuit } from '../../circuits/ir.js';
import type { PointResult, WorkloadResult, WorkloadSpec } from '../../simulation/index.js';
import type { RunResult } from './driver.js';

function pointJson(p: PointResult) {
  return {
    ...(p.memory === undefined ? {} : { memory: p.memory }),
    ...(p.statevector === undefined ? {} : { statevector: p.statevector }),
    ...(p.expectation === undefined ? {} : { expectation: p.expectation }),
    ...(p.truncation === undefined
      ? {}
      : {
          truncation: {
            fidelity_lower_bound: p.truncation.fidelityLowerBound,
            fidelity_estimate: p.truncation.fidelityEstimate,
            max_bond_dimension_reached: p.truncation.maxBondDimensionReached,
            truncations: p.truncation.truncations,
            discarded_weight: p.truncation.discardedWeight,
          },
        }),
  };
}

const LABELS = {
  statevector: 'exact state-vector',
  stabilizer: 'stabilizer (tableau reference sample and Pauli frames)',
  matrix_product_state: 'matrix product state',
  density_matrix: 'density matrix (exact channels)',
} as const;

/** The `meta.simulator` label and the method fields of a run's answer. */
function methodMeta(spec: WorkloadSpec, noisy: boolean, reason: string | undefined) {
  if (spec.method === undefined) return { simulator: noisy ? 'noisy state-vector trajectories (calibrated noise model)' : 'exact state-vector' };
  const label = spec.method === 'statevector' && noisy ? 'noisy state-vector trajectories (calibrated noise model)' : LABELS[spec.method];
  return { simulator: label, method: spec.method, ...(reason === undefined ? {} : { method_reason: reason }) };
}

export function workloadResultJson(c: Circuit, seed: number, spec: WorkloadSpec, w: WorkloadResult, noisy: boolean): RunResult {
  const registers = !splitsCounts(c.registers) ? {} : { registers: c.registers.map((r) => ({ name: r.name, size: r.size })) };
  const trajectories = w.points.reduce((a, p) => a + p.trajectories, 0);
  const meta = { seed, ...methodMeta(spec, noisy, spec.methodReason), trajectories };
  if (spec.points === undefined) {
    const p = w.points[0]!;
    return {
      counts: p.counts,
      ...(p.probabilities === undefined ? {} : { probabilities: p.probabilities }),
      probabilitiesKind: p.probabilitiesKind,
      notes: p.notes,
      meta,
      extra: { result_types: spec.resultTypes, ...pointJson(p), ...registers },
    };
  }
  const names = c.parameters ?? [];
  return {
    counts: {},
    probabilitiesKind: 'omitted',
    notes: [`a parameter sweep of ${w.points.length} points: the results of each are in points (point k ran with seed ${seed} + k)`],
    meta,
    extra: {
      result_types: spec.resultTypes,
      parameters: [...names],
      ...registers,
      points: w.points.map((p, k) => ({
        parameter_values: Object.fromEntries(names.map((n, i) => [n, spec.points![k]![i]!])),
        seed: p.seed,
        counts: p.counts,
        ...(p.probabilities === undefined ? {} : { probabilities: p.probabilities }),
        probabilities_kind: p.probabilitiesKind,
        ...pointJson(p),
        notes: p.notes,
      })),
    },
  };
}
