import { Type } from 'typebox';
import { MAX_SWEEP_POINTS } from '../../../circuits/parameters.js';
import { MAX_PARAMETERS, PARAMETER_NAME_PATTERN } from '../../../circuits/param-expr.js';
import { RESULT_TYPES } from '../../../simulation/workload.js';

/** The workload fields of a simulator run (src/execution/workload-request.ts checks them against the circuit). */
export const WorkloadBodyFields = {
  parameter_values: Type.Optional(
    Type.Array(Type.Record(Type.String({ pattern: PARAMETER_NAME_PATTERN }), Type.Number(), { maxProperties: MAX_PARAMETERS }), {
      minItems: 1,
      maxItems: MAX_SWEEP_POINTS,
      description: `A sweep: one binding of the circuit's declared parameters per point, e.g. [{"theta": 0.1}, {"theta": 0.2}]; every point runs in this one job (at most ${MAX_SWEEP_POINTS}). Required when the circuit declares parameters.`,
    }),
  ),
  result_types: Type.Optional(
    Type.Array(Type.String({ enum: [...RESULT_TYPES] }), {
      minItems: 1,
      maxItems: RESULT_TYPES.length,
      description:
        'What to return (default ["counts"]; a repeat counts once): counts; memory (per-shot bitstrings, at most 10000 shots per point and 100000 per run, free); probabilities (exact on the simulator); statevector (at most 20 qubits, [re, im] pairs, first 4 points of a sweep); expectation (of observables, exact on the simulator)',
    }),
  ),
  observables: Type.Optional(
    Type.Array(
      Type.Object(
        {
          pauli: Type.String({ pattern: '^[IXYZ]+$', maxLength: 1024, description: 'One of I, X, Y, Z per qubit; the RIGHTMOST character acts on qubit 0 (Qiskit order)' }),
          coeff: Type.Number(),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 256, description: 'A Pauli-sum observable H = Σ coeff·P for the expectation result type' },
    ),
  ),
};
