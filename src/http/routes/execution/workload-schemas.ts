import { Type } from 'typebox';
import { MAX_SWEEP_POINTS } from '../../../circuits/parameters.js';
import { MAX_PARAMETERS, PARAMETER_NAME_PATTERN } from '../../../circuits/param-expr.js';
import { RESULT_TYPES } from '../../../simulation/workload.js';
import { MAX_BOND_DIMENSION_LIMIT, METHODS, STABILIZER_MAX_QUBITS } from '../../../simulation/index.js';
import { MAX_SCALE_FACTOR, MAX_SCALE_FACTORS } from '../../../execution/mitigation/mitigation-request.js';

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
          pauli: Type.String({ pattern: '^[IXYZ]+$', maxLength: STABILIZER_MAX_QUBITS, description: 'One of I, X, Y, Z per qubit; the RIGHTMOST character acts on qubit 0 (Qiskit order)' }),
          coeff: Type.Number(),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 256, description: 'A Pauli-sum observable H = Σ coeff·P for the expectation result type' },
    ),
  ),
};

/** The simulation method of a simulator run (docs/simulator.md#methods). */
export const MethodBodyFields = {
  method: Type.Optional(
    Type.String({
      enum: [...METHODS],
      description:
        "Simulation method (default auto): auto picks stabilizer for Clifford-only circuits, statevector within its qubit limit, matrix_product_state when the circuit keeps entanglement low, else refuses naming what would take it; the answer names the method used (results.meta.method) and, for auto, why. Each method's qubit limit is in the device listing.",
    }),
  ),
  method_options: Type.Optional(
    Type.Object(
      {
        max_bond_dimension: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BOND_DIMENSION_LIMIT, description: 'matrix_product_state: largest bond dimension kept (default 256)' })),
        truncation_threshold: Type.Optional(
          Type.Number({ minimum: 0, exclusiveMaximum: 1, description: 'matrix_product_state: discard the smallest Schmidt coefficients while their total weight stays at most this (default 0)' }),
        ),
        noise: Type.Optional(
          Type.Object(
            {
              depolarizing_1q: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'depolarizing probability after every one-qubit gate' })),
              depolarizing_2q: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'two-qubit depolarizing probability after every two-qubit gate' })),
              amplitude_damping: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'amplitude damping gamma on each qubit of every gate' })),
              phase_damping: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'phase damping lambda on each qubit of every gate' })),
              readout_error: Type.Optional(
                Type.Array(Type.Number({ minimum: 0, maximum: 1 }), { minItems: 2, maxItems: 2, description: '[P(read 1 | true 0), P(read 0 | true 1)] on every measurement' }),
              ),
            },
            {
              additionalProperties: false,
              description:
                "density_matrix on the simulator devices: a noise model applied exactly (probabilities include it). Needs method 'density_matrix'; emulated devices apply their calibrated model instead.",
            },
          ),
        ),
      },
      {
        additionalProperties: false,
        description: 'Options of the method: max_bond_dimension and truncation_threshold for matrix_product_state (the answer reports the truncation, results.truncation); noise for density_matrix.',
      },
    ),
  ),
};

/** Error mitigation of a hardware run (docs/execution.md#error-mitigation); src/execution/mitigation checks the rest. */
export const MitigationBodyField = Type.Optional(
  Type.Object(
    {
      readout: Type.Optional(
        Type.Boolean({
          description:
            "Readout-error mitigation from the device's calibration (tensored per-qubit confusion, inverted in the measured subspace): the raw counts stay in `counts`, `mitigation.readout` gives quasi-probabilities, the nearest probability distribution and the mitigated expectation. No extra task.",
        }),
      ),
      zne: Type.Optional(
        Type.Object(
          {
            scale_factors: Type.Optional(
              Type.Array(Type.Integer({ minimum: 1, maximum: MAX_SCALE_FACTOR }), {
                minItems: 2,
                maxItems: MAX_SCALE_FACTORS,
                description: 'Odd noise scale factors in increasing order starting at 1 (default [1, 3, 5]); scale 2k+1 runs U (U† U)^k. Each scale is one more task per measurement group.',
              }),
            ),
            extrapolation: Type.Optional(Type.String({ enum: ['linear', 'richardson', 'exponential'], description: 'The fit to scale 0 (default richardson)' })),
          },
          { additionalProperties: false },
        ),
      ),
      debiasing: Type.Optional(
        Type.Boolean({
          description:
            'IonQ\'s own debiasing (`settings.error_mitigation.debiasing: true` in the job IonQ gets): IonQ QPUs only, at least 500 shots, asked alone. `counts` are then IonQ\'s aggregate over its symmetrized variants and the answer says `applied_by: "ionq", native: true`.',
        }),
      ),
    },
    {
      additionalProperties: false,
      description:
        'Error mitigation (docs/execution.md#error-mitigation): `readout` and `zne` are computed by qrail from the raw counts (`zne` needs result_types ["expectation"] and observables); `debiasing` is passed through to IonQ.',
    },
  ),
);
