import type { Circuit } from '../../../circuits/ir.js';
import { keptGateCalls, qasmOutput, type CircuitOutputFormat } from '../../../circuits/qasm/export-qasm.js';
import { toWire } from '../../../circuits/wire-format.js';
import { fail } from '../../../errors/app-error.js';
import { OPTIMIZATION_ERRORS } from '../../../optimization/error-codes.js';
import { optimizeParameterized } from '../../../optimization/optimize-parameterized.js';

/**
 * The optimize answer for a circuit with symbolic parameters (src/optimization/optimize-parameterized.ts):
 * the same shape as a numeric one. It runs on the request's thread: one linear pass plus at most
 * a few unitaries of at most 10 qubits. Device targets need numbers (routing, native gates), so a
 * device or a provider hint is refused rather than ignored.
 */
export function parameterizedAnswer(
  circuit: Circuit,
  o: { profile: string; backendHint: string; device: string | undefined; outputFormat: CircuitOutputFormat | undefined; inlineGates: boolean; warnings: readonly string[] },
) {
  if (o.device !== undefined || o.backendHint !== 'generic') {
    throw fail(
      OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED,
      'A circuit with symbolic parameters is optimized for the generic target only: bind its parameters to map it onto a device or provider.',
      { reason: 'parameterized circuit', device: o.device ?? null, backend_hint: o.backendHint },
    );
  }
  const r = optimizeParameterized(circuit);
  const warnings = [...o.warnings];
  const out = keptGateCalls(r.circuit, o.inlineGates, warnings);
  return {
    circuit: toWire(out),
    ...qasmOutput(out, o.outputFormat, { inlineGates: o.inlineGates, warnings }),
    profile: o.profile,
    backend_hint: o.backendHint,
    device: null,
    metrics_before: r.metricsBefore,
    metrics_after: r.metricsAfter,
    passes: [...r.passes],
    proof: {
      verified: true as const,
      methods: r.methods.map((m) => ({ ...m })),
      certificate: { digest: r.certificate.digest, step_count: r.certificate.stepCount, global_steps: 0 },
    },
    timed_out: false,
    notes: [...r.notes, 'symbolic certificate steps are replayed on the server; only their digest is returned'],
    warnings,
    elapsed_ms: Math.round(r.elapsedMs),
  };
}
