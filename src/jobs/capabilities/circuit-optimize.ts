import type { Circuit } from '../../circuits/ir.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import type { BackendHint, Profile } from '../../optimization/optimize.js';
import type { Capability } from '../capability.js';
import type { JobsComputePort } from '../ports.js';
import { CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';
import { getExample } from '../../circuits/examples.js';

const PROFILE_PRICE: Record<Profile, bigint> = { safe: 500n, balanced: 2_000n, aggressive: 5_000n };
const PER_OP: Record<Profile, bigint> = { safe: 1n, balanced: 2n, aggressive: 5n };

interface Prepared {
  readonly circuit: Circuit;
  readonly profile: Profile;
  readonly backendHint: BackendHint;
  readonly warnings: string[];
}

/** `circuit.optimize`: proof-gated optimization (same code as POST /v1/circuits/optimize); fails closed. */
export function circuitOptimize(limits: CircuitLimits, compute: JobsComputePort): Capability<Prepared> {
  const props = (circuit: unknown) => ({
    circuit,
    profile: { type: 'string', enum: ['safe', 'balanced', 'aggressive'], default: 'safe' },
    backend_hint: { type: 'string', enum: ['generic', 'provider-one', 'provider-two'], default: 'generic' },
  });
  return {
    id: 'circuit.optimize',
    product: 'product-one',
    title: 'Proof-gated circuit optimization',
    description:
      'Optimizes a circuit with the safe, balanced or aggressive profile for a backend; the result carries a checked equivalence proof. A result that cannot be proven fails the job (OPTIMIZATION_UNVERIFIED) and nothing is charged.',
    pricing: {
      formula: 'profile base + per-operation × operations (safe 0.000500 + 0.000001 × ops; balanced 0.002000 + 0.000002 × ops; aggressive 0.005000 + 0.000005 × ops)',
      parameters: { safe_base: '0.000500', safe_per_op: '0.000001', balanced_base: '0.002000', balanced_per_op: '0.000002', aggressive_base: '0.005000', aggressive_per_op: '0.000005' },
    },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuit: getExample('optimizable'), profile: 'balanced', backend_hint: 'generic' },
    onInterrupted: 'rerun',
    prepare(request) {
      const { circuit, warnings } = requireCircuit(request['circuit'], limits, '/circuit');
      return { circuit, profile: (request['profile'] as Profile | undefined) ?? 'safe', backendHint: (request['backend_hint'] as BackendHint | undefined) ?? 'generic', warnings };
    },
    quote: (p) => ({
      priceMicros: PROFILE_PRICE[p.profile] + PER_OP[p.profile] * BigInt(p.circuit.ops.length),
      breakdown: { profile: p.profile, operations: p.circuit.ops.length },
    }),
    async run(p, ctx) {
      const r = await compute.optimize(p.circuit, { profile: p.profile, backendHint: p.backendHint }, ctx.signal);
      const cert = r.certificate;
      return {
        circuit: r.circuit,
        profile: p.profile,
        backend_hint: p.backendHint,
        metrics_before: r.metricsBefore,
        metrics_after: r.metricsAfter,
        passes: [...r.passes],
        proof: { verified: true, methods: r.methods.map((m) => ({ ...m })), certificate: { digest: cert.digest, step_count: cert.stepCount, global_steps: cert.globalSteps } },
        timed_out: r.timedOut,
        notes: [...r.notes],
        warnings: p.warnings,
      };
    },
  };
}
