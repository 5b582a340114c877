/**
 * Result types of a hardware run (docs/execution.md#results-on-hardware): what a continuation
 * asks for, checked against the device before any money moves, and the circuits it runs — one
 * task each: the circuit itself when counts or memory are asked for, then one circuit per
 * qubit-wise commuting group of the observable (pauli-groups.ts). Pure: no I/O.
 */
import type { Circuit } from '../circuits/ir.js';
import { fail } from '../errors/app-error.js';
import type { PauliTerm, ResultType } from '../simulation/index.js';
import { EXECUTION_ERRORS } from './error-codes.js';
import { basisChangeProblem, basisCircuit, estimateFromGroups, groupQubitWise, type MeasurementGroup } from './pauli-groups.js';
import { checkWorkload, type RunOptions, type WorkloadFields } from './workload-request.js';
import { checkMitigation, refuseUnmitigable, scalesOf, type MitigationPlan, type MitigationRequest, type MitigationSupport } from './mitigation/mitigation-request.js';
import type { ReadoutCalibration } from './mitigation/readout-calibration.js';
import { mitigationResultJson } from './mitigation/mitigation-result.js';
import { foldCircuit } from './mitigation/zero-noise.js';

/** What a hardware device returns besides counts. */
export interface HardwareResultSupport {
  /** Per-shot bitstrings: emulated devices (sampled shots) and IBM's Sampler; not IonQ (histograms only). */
  readonly memory: boolean;
  /** Expectation from shots: devices that run the group circuits of one job (emulated devices, IBM's Sampler with one PUB per group). */
  readonly expectation: boolean;
  /** Named in refusals. */
  readonly why: string;
}

export function hardwareResultSupport(driver: string, provider: string): HardwareResultSupport {
  if (driver === 'emulated') return { memory: true, expectation: true, why: 'an emulated device' };
  // IBM's Sampler V2: per-shot samples, and a job's tasks as the PUBs of one Sampler job.
  if (provider === 'provider-one') return { memory: true, expectation: true, why: 'IBM Quantum' };
  return { memory: false, expectation: false, why: "IonQ's API v0.4 returns histograms, not per-shot results, and the driver sends one circuit per job (an expectation's groups need several)" };
}

/** Stored in run_options.hardware: how the job's tasks map to results. */
export interface HardwareTasks {
  /** Task 0 is the circuit itself (counts, memory). */
  readonly plain: boolean;
  readonly groups: readonly MeasurementGroup[];
  readonly identity: readonly number[];
  /** The translated circuits (wire format), one per task; set when the job is queued. */
  readonly circuits?: readonly unknown[];
  /** Error mitigation asked for: with ZNE the groups' tasks repeat once per scale factor, folded. */
  readonly mitigation?: MitigationPlan;
}

export type HardwareRunOptions = RunOptions & { readonly hardware: HardwareTasks };

export interface HardwareRunPlan {
  /** The circuit as submitted (stored with the job). */
  readonly circuit: Circuit;
  /** One per task, in task order. */
  readonly tasks: readonly Circuit[];
  /** Null: a plain counts run, stored as before result types existed. */
  readonly runOptions: HardwareRunOptions | null;
}

const UNSUPPORTED_EVERYWHERE: Partial<Record<ResultType, string>> = {
  probabilities: 'exact probabilities come from a state vector, which hardware does not have: ask counts (or memory)',
  statevector: 'the state vector exists on simulator devices only',
};

/**
 * The tasks of one hardware run; 400 EXECUTION_RESULT_TYPES_INVALID for a malformed request (as
 * on a simulator, MEMORY_TOO_LARGE included), 422 EXECUTION_RESULT_TYPE_UNSUPPORTED for a result
 * type this device cannot give. `path` prefixes the JSON paths (a batch item's).
 */
export function planHardwareRun(
  c: Circuit,
  shots: number,
  f: Pick<WorkloadFields, 'result_types' | 'observables'> & { readonly mitigation?: MitigationRequest | undefined },
  support: HardwareResultSupport,
  path = '',
  mitigationSupport: MitigationSupport = { readout: false, debiasing: false },
): HardwareRunPlan {
  const mitigation = checkMitigation(f.mitigation, f.result_types, (f.observables ?? []).length > 0);
  refuseUnmitigable(mitigation, c, mitigationSupport, path, shots);
  const checked = checkWorkload(c, shots, { result_types: f.result_types, observables: f.observables });
  // Counts alone run as before result types existed; keys are split by register afterwards by the worker (register-split.ts).
  if (checked === null || (checked.result_types.length === 1 && checked.result_types[0] === 'counts')) {
    if (mitigation === null) return { circuit: c, tasks: [c], runOptions: null };
    return { circuit: c, tasks: [c], runOptions: { parameters: [], result_types: ['counts'], hardware: { plain: true, groups: [], identity: [], mitigation } } };
  }
  const types = checked.result_types;
  const problems: { path: string; code: string; message: string }[] = [];
  types.forEach((t, i) => {
    const p = `${path}/result_types/${i}`;
    const everywhere = UNSUPPORTED_EVERYWHERE[t];
    if (everywhere !== undefined) problems.push({ path: p, code: 'RESULT_TYPE_UNSUPPORTED', message: `${t} is not offered on hardware: ${everywhere}` });
    if (t === 'memory' && !support.memory) problems.push({ path: p, code: 'RESULT_TYPE_UNSUPPORTED', message: `memory is not offered on this device: ${support.why}` });
    if (t === 'expectation' && !support.expectation) problems.push({ path: p, code: 'RESULT_TYPE_UNSUPPORTED', message: `expectation is not offered on this device: ${support.why}` });
    if (t === 'expectation' && support.expectation) {
      const why = basisChangeProblem(c);
      if (why !== null)
        problems.push({ path: p, code: 'RESULT_TYPE_UNSUPPORTED', message: `expectation on hardware measures the circuit in other bases, which needs terminal measurements only: ${why}` });
    }
  });
  if (problems.length > 0) throw fail(EXECUTION_ERRORS.EXECUTION_RESULT_TYPE_UNSUPPORTED, `A result type cannot be given on this device: ${problems[0]!.message}`, problems);
  const grouping = checked.observables === undefined ? { groups: [], identity: [] } : groupQubitWise(checked.observables);
  // A run measures something: with only identity terms (and no counts) the circuit itself runs.
  const plain = types.includes('counts') || types.includes('memory') || grouping.groups.length === 0;
  // With ZNE the groups are measured at every scale in turn (scale 1 first: the unfolded circuits).
  const groupCircuits = grouping.groups.map((g) => basisCircuit(c, g.basis));
  const tasks = [...(plain ? [c] : []), ...scalesOf(mitigation).flatMap((s) => groupCircuits.map((g) => foldCircuit(g, s)))];
  const hardware = { plain, groups: grouping.groups, identity: grouping.identity, ...(mitigation === null ? {} : { mitigation }) };
  return { circuit: c, tasks, runOptions: { ...checked, hardware } };
}

/** The seed of task t of a job: the job's own for task 0, spread apart for the others (never another job's seed + t). */
export const taskSeed = (seed: number, t: number): number => (t === 0 ? seed : (seed + t * 0x9e3779b1) % 2 ** 52);

/**
 * The result of a hardware job with result types (the worker stores it; views.ts shows it with
 * the simulator's field names): `counts` (and `memory`) of the circuit itself, `expectation`
 * estimated from the group tasks' counts with its standard error and each group's counts.
 * `counts[t]` is task t's histogram; `memory` the first task's shots in order (when asked).
 */
export function hardwareResultJson(
  o: HardwareRunOptions,
  counts: readonly Record<string, number>[],
  memory: readonly string[] | undefined,
  device?: { readonly circuits: readonly Circuit[]; readonly readout: ReadoutCalibration | null },
) {
  const h = o.hardware;
  // The scale-1 groups (the first ones): the raw expectation; folded scales only enter the ZNE answer.
  const groupCounts = counts.slice(h.plain ? 1 : 0, (h.plain ? 1 : 0) + h.groups.length);
  const expectation =
    o.observables === undefined || !o.result_types.includes('expectation')
      ? undefined
      : (() => {
          const e = estimateFromGroups(o.observables, { groups: h.groups, identity: h.identity }, groupCounts);
          return { ...e, groups: e.groups.map((g, i) => ({ ...g, counts: groupCounts[i] ?? {} })) };
        })();
  const notes = h.plain ? [] : ['the circuit itself was not run (no counts asked for): each measurement group’s counts are in expectation.groups'];
  if (expectation !== undefined)
    notes.push(`expectation estimated from ${h.groups.length} measurement group(s), one task each; the standard error includes the covariance of the terms measured together`);
  return {
    counts: h.plain ? (counts[0] ?? {}) : {},
    notes,
    extra: {
      result_types: o.result_types,
      ...(memory === undefined || !o.result_types.includes('memory') ? {} : { memory: [...memory] }),
      ...(expectation === undefined ? {} : { expectation }),
      ...(h.mitigation === undefined
        ? {}
        : {
            mitigation: mitigationResultJson({
              plan: h.mitigation,
              plain: h.plain,
              grouping: { groups: h.groups, identity: h.identity },
              observables: o.observables,
              counts,
              circuits: device?.circuits ?? [],
              readout: device?.readout ?? null,
            }),
          }),
    },
  };
}

/**
 * Tasks one hardware run of these result types takes (a quote's `tasks` per run): one per
 * qubit-wise commuting group of the observable, plus one for the circuit itself when counts or
 * memory are asked for (or nothing else needs measuring). The same count the continuation takes;
 * 400 EXECUTION_RESULT_TYPES_INVALID for Pauli strings that are not one letter per qubit of one length.
 */
export function tasksPerRun(resultTypes: readonly string[] | undefined, observables: readonly PauliTerm[] | undefined, mitigation?: MitigationRequest): number {
  const scales = scalesOf(checkMitigation(mitigation, resultTypes, (observables ?? []).length > 0)).length;
  const types = resultTypes ?? ['counts'];
  const obs = types.includes('expectation') ? (observables ?? []) : [];
  const n = obs[0]?.pauli.length ?? 0;
  const bad = obs.findIndex((t) => t.pauli.length !== n || !/^[IXYZ]+$/.test(t.pauli));
  if (bad >= 0) {
    const message = 'every Pauli string of the observable has one of I, X, Y, Z per qubit, all of the same length';
    throw fail(EXECUTION_ERRORS.EXECUTION_RESULT_TYPES_INVALID, `The result types cannot be priced: ${message}`, [{ path: `/observables/${bad}/pauli`, code: 'OBSERVABLE_INVALID', message }]);
  }
  const groups = groupQubitWise(obs).groups.length;
  const plain = types.includes('counts') || types.includes('memory') || groups === 0;
  return groups * scales + (plain ? 1 : 0);
}
