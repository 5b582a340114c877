/**
 * The `mitigation` field of a hardware continuation and its quote (docs/execution.md#error-mitigation):
 * checked before anything is held or taken, and how many tasks it adds. Pure: no I/O.
 */
import type { Circuit } from '../../circuits/ir.js';
import { fail } from '../../errors/app-error.js';
import { EXECUTION_ERRORS } from '../error-codes.js';
import { unfoldableGates, type Extrapolation } from './zero-noise.js';

export interface MitigationRequest {
  readonly readout?: boolean | undefined;
  /** IonQ's own debiasing, passed through (docs/decisions/execution-mitigation-native.md). */
  readonly debiasing?: boolean | undefined;
  readonly zne?: { readonly scale_factors?: readonly number[] | undefined; readonly extrapolation?: string | undefined } | undefined;
}

/** What a job stores (run_options.hardware.mitigation): defaults filled in. */
export interface MitigationPlan {
  readonly readout: boolean;
  readonly zne: { readonly scale_factors: readonly number[]; readonly extrapolation: Extrapolation } | null;
  /** The provider's native debiasing (IonQ QPUs), alone; absent in plans stored before it existed. */
  readonly debiasing?: boolean;
}

/** What a device offers besides qrail's own ZNE (refuseUnmitigable). */
export interface MitigationSupport {
  /** Per-qubit readout figures (an emulated device's calibration, a provider's report). */
  readonly readout: boolean;
  /** The provider debiases natively when asked (IonQ QPUs). */
  readonly debiasing: boolean;
}

/** IonQ's v0.4 document: "To turn on debiasing, you must request at least 500 shots". */
export const DEBIASING_MIN_SHOTS = 500;

const EXTRAPOLATIONS: readonly Extrapolation[] = ['linear', 'richardson', 'exponential'];
export const DEFAULT_SCALE_FACTORS: readonly number[] = [1, 3, 5];
export const MAX_SCALE_FACTOR = 9;
export const MAX_SCALE_FACTORS = 5;

type Problem = { path: string; code: string; message: string };

/**
 * The plan of a request's `mitigation`, or null when it asks for nothing. 400
 * EXECUTION_MITIGATION_INVALID lists every problem: ZNE_NEEDS_EXPECTATION (zne without an
 * expectation of observables), SCALE_FACTORS_INVALID (not distinct odd integers 1–9 in
 * increasing order from 1), EXTRAPOLATION_UNDERDETERMINED (fewer points than the fit has unknowns),
 * NATIVE_NOT_COMBINABLE (debiasing with qrail's readout or ZNE: IonQ's variants run the circuit on
 * permuted qubits and return one aggregate, so per-qubit confusion and folded runs do not apply).
 */
export function checkMitigation(m: MitigationRequest | undefined, resultTypes: readonly string[] | undefined, hasObservables: boolean): MitigationPlan | null {
  if (m === undefined) return null;
  const readout = m.readout === true;
  if (m.debiasing === true) {
    if (readout || m.zne !== undefined) {
      const message = 'IonQ’s debiasing runs the circuit as variants on permuted qubits and returns their aggregate: it is asked alone, without readout or zne';
      throw fail(EXECUTION_ERRORS.EXECUTION_MITIGATION_INVALID, `The mitigation cannot be done as asked: ${message}.`, [{ path: '/mitigation/debiasing', code: 'NATIVE_NOT_COMBINABLE', message }]);
    }
    return { readout: false, zne: null, debiasing: true };
  }
  if (m.zne === undefined) return readout ? { readout, zne: null } : null;
  const problems: Problem[] = [];
  const scales = m.zne.scale_factors ?? DEFAULT_SCALE_FACTORS;
  const extrapolation = (m.zne.extrapolation ?? 'richardson') as Extrapolation;
  // The route's schema admits these three only; a direct caller is told the same way.
  if (!EXTRAPOLATIONS.includes(extrapolation)) problems.push({ path: '/mitigation/zne/extrapolation', code: 'EXTRAPOLATION_UNKNOWN', message: `extrapolation is one of ${EXTRAPOLATIONS.join(', ')}` });
  if (!(resultTypes ?? ['counts']).includes('expectation') || !hasObservables) {
    const message = 'zero-noise extrapolation extrapolates expectation values: ask result_types ["expectation"] with observables';
    problems.push({ path: '/mitigation/zne', code: 'ZNE_NEEDS_EXPECTATION', message });
  }
  const odd = scales.every((s) => Number.isInteger(s) && s >= 1 && s <= MAX_SCALE_FACTOR && s % 2 === 1);
  const increasing = scales[0] === 1 && scales.every((s, i) => i === 0 || s > scales[i - 1]!);
  if (!odd || !increasing || scales.length > MAX_SCALE_FACTORS) {
    const message = `scale factors are 2 to ${MAX_SCALE_FACTORS} distinct odd integers from 1 to ${MAX_SCALE_FACTOR}, in increasing order starting at 1, the unfolded circuit (a circuit is folded whole: U (U† U)^k)`;
    problems.push({ path: '/mitigation/zne/scale_factors', code: 'SCALE_FACTORS_INVALID', message });
  }
  if (scales.length < 2) {
    const message = `${extrapolation} extrapolation needs at least 2 scale factors`;
    problems.push({ path: '/mitigation/zne/scale_factors', code: 'EXTRAPOLATION_UNDERDETERMINED', message });
  }
  if (problems.length > 0) throw fail(EXECUTION_ERRORS.EXECUTION_MITIGATION_INVALID, `The mitigation cannot be done as asked: ${problems[0]!.message}.`, problems);
  return { readout, zne: { scale_factors: [...scales], extrapolation } };
}

/**
 * 422 EXECUTION_MITIGATION_UNSUPPORTED when this device or circuit cannot be mitigated as
 * planned: NO_CALIBRATION (readout mitigation needs the device's readout errors),
 * GATE_NOT_FOLDABLE (a gate with no one-gate inverse to fold with), DEBIASING_UNSUPPORTED (not an
 * IonQ QPU), DEBIASING_TOO_FEW_SHOTS (IonQ debiases 500 shots or more).
 */
export function refuseUnmitigable(plan: MitigationPlan | null, c: Circuit, support: MitigationSupport, path = '', shots?: number): void {
  if (plan === null) return;
  const problems: Problem[] = [];
  if (plan.readout && !support.readout)
    problems.push({ path: `${path}/mitigation/readout`, code: 'NO_CALIBRATION', message: 'readout mitigation needs the device’s readout errors, and this device reports no calibration now' });
  if (plan.debiasing === true && !support.debiasing)
    problems.push({ path: `${path}/mitigation/debiasing`, code: 'DEBIASING_UNSUPPORTED', message: 'debiasing is IonQ’s own mitigation, offered on IonQ QPUs only (p2-ionq-qpu on a qpu.* target)' });
  else if (plan.debiasing === true && shots !== undefined && shots < DEBIASING_MIN_SHOTS)
    problems.push({ path: `${path}/mitigation/debiasing`, code: 'DEBIASING_TOO_FEW_SHOTS', message: `IonQ debiases runs of at least ${DEBIASING_MIN_SHOTS} shots; this one has ${shots}` });
  const unfoldable = plan.zne === null ? [] : unfoldableGates(c);
  if (unfoldable.length > 0)
    problems.push({ path: `${path}/circuit`, code: 'GATE_NOT_FOLDABLE', message: `unitary folding needs each gate’s inverse as one gate; ${unfoldable.join(', ')} has none: decompose it first` });
  if (problems.length > 0) throw fail(EXECUTION_ERRORS.EXECUTION_MITIGATION_UNSUPPORTED, `The mitigation cannot be done on this device or circuit: ${problems[0]!.message}.`, problems);
}

/** Scale factors a run is measured at (1 without ZNE): each multiplies the measurement groups' tasks. */
export const scalesOf = (plan: MitigationPlan | null): readonly number[] => plan?.zne?.scale_factors ?? [1];
