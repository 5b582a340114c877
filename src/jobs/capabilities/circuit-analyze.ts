import { analyzeCircuit } from '../../circuits/analysis/analyze.js';
import type { Circuit } from '../../circuits/ir.js';
import { requireCircuit, type CircuitLimits } from '../../circuits/wire-format.js';
import { EXECUTION_DEVICES as DEVICES, PROVIDERS } from '../../devices/device-catalogue.js';
import { fail } from '../../errors/app-error.js';
import { HTTP_ERRORS } from '../../errors/http-error-codes.js';
import { duplicateItemDetails } from '../../errors/duplicate-items.js';
import { analysisEntangledPairs } from '../../coupling/entangled-pairs.js';
import type { Capability } from '../capability.js';
import type { JobsComputePort } from '../ports.js';
import { BELL, CIRCUIT_FIELD_SCHEMA, CIRCUIT_FIELD_SHALLOW } from './circuit-schema.js';

const BASE = 200n;
const PER_OP = 1n;

/**
 * `circuit.analyze`: the analysis of POST /v1/circuits/analyze, as a prepaid job — the same
 * answer, entangled pairs included (their probe runs on the compute pool, as the endpoint's does).
 */
export function circuitAnalyze(limits: CircuitLimits, compute: JobsComputePort): Capability<{ circuit: Circuit; devices: typeof DEVICES; warnings: string[] }> {
  const props = (circuit: unknown) => ({
    circuit,
    // Repeats are checked in prepare, linearly (uniqueItems is pairwise in Ajv).
    devices: { type: 'array', items: { type: 'string', enum: DEVICES.map((d) => d.id) }, maxItems: 64, description: 'Only these device ids, each at most once (default: every device)' },
  });
  return {
    id: 'circuit.analyze',
    product: 'product-one',
    title: 'Circuit analysis',
    description: 'Counts, depth, T-count, interaction graph, per-provider and per-device compatibility, and entanglement enrichment of a circuit (same as POST /v1/circuits/analyze).',
    pricing: { formula: '0.000200 + 0.000001 × operations', parameters: { base: '0.000200', per_operation: '0.000001' } },
    requestSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SCHEMA) },
    validationSchema: { type: 'object', additionalProperties: false, required: ['circuit'], properties: props(CIRCUIT_FIELD_SHALLOW) },
    example: { circuit: BELL },
    // Pure and deterministic: safe to run again after a crash.
    onInterrupted: 'rerun',
    prepare(request) {
      const { circuit, warnings } = requireCircuit(request['circuit'], limits, '/circuit');
      const wanted = request['devices'] as string[] | undefined;
      const repeated = wanted === undefined ? [] : duplicateItemDetails(wanted, '/devices');
      if (repeated.length > 0) throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'A device id is listed more than once.', repeated);
      if (wanted !== undefined && wanted.some((id) => !DEVICES.some((d) => d.id === id))) {
        throw fail(HTTP_ERRORS.VALIDATION_FAILED, 'Unknown device ids.', [{ path: '/devices', code: 'UNKNOWN_DEVICE', message: 'contains an unknown device id' }]);
      }
      const devices = wanted === undefined ? DEVICES : DEVICES.filter((d) => wanted.includes(d.id));
      return { circuit, devices, warnings };
    },
    quote: (p) => ({ priceMicros: BASE + PER_OP * BigInt(p.circuit.ops.length), breakdown: { base: '0.000200', operations: p.circuit.ops.length } }),
    async run(p, ctx) {
      const entangled = await analysisEntangledPairs(p.circuit, () => compute.entangledPairs(p.circuit, ctx.signal));
      const analysis = analyzeCircuit(p.circuit, { devices: p.devices, entangledPairs: entangled });
      return { ...analysis, providers: PROVIDERS.map((x) => ({ id: x.id, name: x.name })), warnings: p.warnings };
    },
  };
}
