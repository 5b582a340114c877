/**
 * The `data` of an optimize answer from the compute task's output: the synchronous route answers
 * it, and an optimize job stores it as its result, so both read the same.
 */
import type { OptimizeTaskOutput } from '../compute/compute-tasks.js';

/** Max steps inlined in the answer; larger certificates are summarised by digest and count. */
export const INLINE_STEPS = 2_000;

export interface AnswerContext {
  readonly profile: string;
  readonly backendHint: string;
  readonly device: string | null;
  readonly includeSteps: boolean;
  /** Validation warnings of the circuit. */
  readonly warnings: readonly string[];
  /** Notes of the caller placed first (the anonymous budget cap). */
  readonly notes?: readonly string[];
}

export function optimizeData(r: OptimizeTaskOutput, o: AnswerContext) {
  const cert = r.certificate;
  const inline = o.includeSteps && cert.steps !== undefined && cert.steps.length <= INLINE_STEPS;
  return {
    circuit: r.circuit,
    ...(r.qasm === undefined ? {} : { qasm: r.qasm }),
    profile: o.profile,
    backend_hint: o.backendHint,
    device: o.device,
    metrics_before: r.metricsBefore,
    metrics_after: r.metricsAfter,
    passes: [...r.passes],
    proof: {
      verified: true as const,
      methods: r.methods.map((m) => ({ ...m })),
      certificate: {
        digest: cert.digest,
        step_count: cert.stepCount,
        global_steps: cert.globalSteps,
        ...(inline ? { steps: cert.steps.map((s) => ({ ...s })) } : {}),
      },
    },
    timed_out: r.timedOut,
    notes: [...(o.notes ?? []), ...r.notes, ...(inline || !o.includeSteps ? [] : [`certificate has ${cert.stepCount} steps; only its digest is returned`])],
    warnings: [...o.warnings, ...(r.exportWarnings ?? [])],
    elapsed_ms: Math.round(r.elapsedMs),
  };
}
