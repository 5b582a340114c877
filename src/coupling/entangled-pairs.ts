import type { EntangledPairsResult } from '../circuits/analysis/analyze.js';
import { lightConePairs } from '../circuits/analysis/entanglement.js';
import type { Circuit } from '../circuits/ir.js';
import { measureCircuit, type CouplingDeps } from './analyze-coupling.js';
import { planMeasured } from './scope.js';

/**
 * Below these the measures are numerical noise (concurrence is accurate to ~1e-7, entropies
 * to ~1e-10; docs/coupling.md), so "entangled" means clearly above them.
 */
export const CONCURRENCE_EPSILON = 1e-6;
export const MUTUAL_INFORMATION_EPSILON = 1e-6;

/** Circuit analysis simulates only circuits this small: it answers every request, fast. */
export const ANALYSIS_ENTANGLEMENT_MAX_QUBITS = 12;
export const ANALYSIS_ENTANGLEMENT_BUDGET_MS = 2_000;

/** Whether the probe would simulate this circuit at all (structure only, cheap); if not it answers at once. */
export function entanglementProbeSimulates(c: Circuit): boolean {
  return planMeasured(c, ANALYSIS_ENTANGLEMENT_MAX_QUBITS).ok;
}

/**
 * Which pairs the final state actually entangles (two-qubit reduced state with Wootters
 * concurrence > ε) and which are correlated at all (mutual information > ε). Only pairs whose
 * light cones meet can be either, so only those are measured.
 */
export async function entangledPairs(c: Circuit, deps: CouplingDeps, timeBudgetMs = ANALYSIS_ENTANGLEMENT_BUDGET_MS): Promise<EntangledPairsResult> {
  const candidates = lightConePairs(c);
  const out = await measureCircuit(c, candidates, { measuredMaxQubits: ANALYSIS_ENTANGLEMENT_MAX_QUBITS, timeBudgetMs: Math.min(timeBudgetMs, ANALYSIS_ENTANGLEMENT_BUDGET_MS) }, deps);
  if (!out.ok) return { pairs: undefined, reason: out.reason };
  const pairs = out.measured.pairs;
  return {
    pairs: pairs.filter((p) => p.concurrence > CONCURRENCE_EPSILON).map((p) => [p.qubits[0], p.qubits[1]]),
    correlated: pairs.filter((p) => p.mutual_information_bits > MUTUAL_INFORMATION_EPSILON).map((p) => [p.qubits[0], p.qubits[1]]),
    method:
      `final pure state from the state-vector simulator (up to ${ANALYSIS_ENTANGLEMENT_MAX_QUBITS} qubits acted on, state before terminal measurements); ` +
      `entangled: Wootters concurrence of the pair's reduced state > ${CONCURRENCE_EPSILON}; correlated: mutual information > ${MUTUAL_INFORMATION_EPSILON} bits. ` +
      'Multipartite entanglement with no pairwise concurrence (e.g. GHZ) shows as correlated, not entangled.',
  };
}

/**
 * The entanglement of circuit analysis, as POST /v1/circuits/analyze and the `circuit.analyze`
 * job both give it: a circuit the probe simulates goes to `simulate` (the compute pool, off the
 * event loop); any other is answered here at once, from its structure.
 */
export async function analysisEntangledPairs(c: Circuit, simulate: () => Promise<EntangledPairsResult>): Promise<EntangledPairsResult> {
  if (entanglementProbeSimulates(c)) return simulate();
  return entangledPairs(c, {
    finalState: () => {
      throw new Error('the entanglement probe simulated a circuit out of its scope');
    },
  });
}
