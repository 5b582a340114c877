/**
 * The `mitigation` part of a hardware job's result (docs/execution.md#error-mitigation): readout
 * mitigation of the circuit's counts and of the expectation, and zero-noise extrapolation of the
 * expectation over the folded runs. The drivers hand over the counts of every task and the
 * translated circuits (which physical qubit each clbit reads, after layout and routing); the
 * device's readout calibration (readout-calibration.ts) gives each physical qubit's confusion.
 * Pure: no I/O.
 */
import type { Circuit } from '../../circuits/ir.js';
import type { PauliTerm } from '../../simulation/index.js';
import { estimateFromGroups, type Grouping } from '../pauli-groups.js';
import type { MitigationPlan } from './mitigation-request.js';
import { clbitReadout, type ReadoutCalibration } from './readout-calibration.js';
import { mitigateReadout, type BitConfusion } from './readout-mitigation.js';
import { extrapolateToZero } from './zero-noise.js';

const bitAt = (key: string, clbit: number): number => (key[key.length - 1 - clbit] === '1' ? 1 : 0);

/**
 * ⟨H⟩ of one group with readout mitigation: each term's value from the quasi-probabilities; the
 * standard error to first order, from the per-shot values with each term divided by its
 * attenuation Π(1 − p01 − p10) over the bits it reads (the tensored inverse of a parity).
 */
function mitigatedGroup(terms: readonly PauliTerm[], termIdx: readonly number[], counts: Readonly<Record<string, number>>, confusion: readonly BitConfusion[]) {
  const { quasi } = mitigateReadout(counts, confusion);
  const n = terms[0]?.pauli.length ?? 0;
  const sign = (key: string, pauli: string) => {
    let s = 1;
    for (let q = 0; q < n; q++) if (pauli[n - 1 - q] !== 'I' && bitAt(key, q) === 1) s = -s;
    return s;
  };
  const gain = termIdx.map((k) => {
    const p = terms[k]!.pauli;
    let a = 1;
    for (let q = 0; q < n; q++) if (p[n - 1 - q] !== 'I') a *= 1 - (confusion[q]?.[0] ?? 0) - (confusion[q]?.[1] ?? 0);
    return a > 0 ? 1 / a : 0;
  });
  const values = termIdx.map((k) => Object.entries(quasi).reduce((a, [key, q]) => a + q * terms[k]!.coeff * sign(key, terms[k]!.pauli), 0));
  let shots = 0;
  let sum = 0;
  let sumSq = 0;
  for (const [key, c] of Object.entries(counts)) {
    const h = termIdx.reduce((a, k, j) => a + gain[j]! * terms[k]!.coeff * sign(key, terms[k]!.pauli), 0);
    shots += c;
    sum += c * h;
    sumSq += c * h * h;
  }
  const mean = shots === 0 ? 0 : sum / shots;
  const variance = shots > 1 ? Math.max(0, (sumSq - shots * mean * mean) / (shots - 1)) / shots : 0;
  return { values, variance };
}

/** ⟨H⟩ from group counts, readout-mitigated when `confusions` (one per group) is given. */
export function expectationOf(terms: readonly PauliTerm[], grouping: Grouping, counts: readonly Readonly<Record<string, number>>[], confusions: readonly (readonly BitConfusion[])[] | null) {
  if (confusions === null) {
    const e = estimateFromGroups(terms, grouping, counts);
    return { value: e.value, stderr: e.stderr ?? 0, terms: e.terms };
  }
  const termValues = terms.map(() => 0);
  for (const k of grouping.identity) termValues[k] = terms[k]!.coeff;
  let variance = 0;
  grouping.groups.forEach((g, gi) => {
    const r = mitigatedGroup(terms, g.terms, counts[gi] ?? {}, confusions[gi] ?? []);
    g.terms.forEach((k, j) => (termValues[k] = r.values[j]!));
    variance += r.variance;
  });
  return { value: termValues.reduce((a, b) => a + b, 0), stderr: Math.sqrt(variance), terms: termValues };
}

export interface MitigationInput {
  readonly plan: MitigationPlan;
  readonly plain: boolean;
  readonly grouping: Grouping;
  readonly observables: readonly PauliTerm[] | undefined;
  /** Counts of every task, in task order: [plain], then the groups at each scale in turn. */
  readonly counts: readonly Readonly<Record<string, number>>[];
  /** The translated circuits of the tasks, same order. */
  readonly circuits: readonly Circuit[];
  readonly readout: ReadoutCalibration | null;
}

const METHOD = 'tensored per-qubit confusion from the device calibration, inverted in the measured subspace (M3: observed bitstrings only, columns renormalised, GMRES)';

export function mitigationResultJson(m: MitigationInput) {
  const { plan, grouping } = m;
  if (plan.debiasing) return nativeDebiasingJson();
  const first = m.plain ? 1 : 0;
  const g = grouping.groups.length;
  const cal = m.readout;
  const perTask = m.circuits.map((c) => (cal === null ? null : clbitReadout(c, cal)));
  const missing = [...new Set(perTask.flatMap((r) => r?.missing ?? []))].sort((a, b) => a - b);
  const readout = plan.readout && cal !== null && missing.length === 0;
  const confusionOf = (t: number): BitConfusion[] => perTask[t]?.confusion ?? [];
  const out: Record<string, unknown> = {
    applied_by: 'qrail',
    native: false,
    notes: ['computed by qrail from the raw counts; the provider ran the circuits without its own mitigation (docs/decisions/execution-mitigation-native.md)'],
  };
  if (plan.readout) {
    if (cal === null) out['readout'] = { applied: false, reason: 'the device reported no calibration when the job finished' };
    else if (!readout) out['readout'] = { applied: false, reason: `the device's calibration has no readout figures for measured qubit(s) ${missing.join(', ')}` };
    else {
      const r = m.plain ? mitigateReadout(m.counts[0] ?? {}, confusionOf(0)) : null;
      const exp =
        m.observables === undefined || g === 0
          ? undefined
          : expectationOf(
              m.observables,
              grouping,
              m.counts.slice(first, first + g),
              grouping.groups.map((_, i) => confusionOf(first + i)),
            );
      const qubits = perTask[0]?.qubits ?? [];
      out['readout'] = {
        applied: true,
        method: METHOD,
        ...(r === null ? {} : { quasi_probabilities: r.quasi, probabilities: r.probabilities, overhead: r.overhead, hamming_distance: r.distance }),
        ...(exp === undefined ? {} : { expectation: exp }),
        calibration: { source: cal.source, calibrated_at: cal.calibratedAt },
        confusion: confusionOf(0).map(([p01, p10], clbit) => ({ qubit: qubits[clbit] ?? null, p01, p10 })),
      };
    }
  }
  if (plan.zne !== null && m.observables !== undefined) {
    const scales = plan.zne.scale_factors;
    const values = scales.map((scale, si) => {
      const base = first + si * g;
      const confusions = readout ? grouping.groups.map((_, i) => confusionOf(base + i)) : null;
      const e = expectationOf(m.observables!, grouping, m.counts.slice(base, base + g), confusions);
      return { scale, value: e.value, stderr: e.stderr };
    });
    const x = extrapolateToZero(
      scales,
      values.map((v) => v.value),
      values.map((v) => v.stderr),
      plan.zne.extrapolation,
    );
    out['zne'] = {
      scale_factors: scales,
      extrapolation: plan.zne.extrapolation,
      folding: 'global unitary folding U (U† U)^k, scale 2k+1',
      readout_mitigated: readout,
      values,
      value: x.value,
      stderr: x.stderr,
      ...(x.note === undefined ? {} : { note: x.note }),
    };
  }
  return out;
}

/**
 * A run IonQ debiased (docs/decisions/execution-mitigation-native.md): the counts are IonQ's
 * aggregate over its symmetrized variants, so this part only says who mitigated and how.
 */
function nativeDebiasingJson() {
  return {
    applied_by: 'ionq',
    native: true,
    notes: [
      'debiased by IonQ (settings.error_mitigation.debiasing: true): the circuit ran as several symmetrized variants and `counts` are IonQ’s aggregate of them, not raw counts (docs/decisions/execution-mitigation-native.md)',
    ],
    debiasing: { applied: true, option: 'settings.error_mitigation.debiasing' },
  };
}
