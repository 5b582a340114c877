/** Response schemas of error mitigation (docs/execution.md#error-mitigation): a job's `results.mitigation` and a device's `mitigation`. */
import { Type } from 'typebox';
import { MapOf, Nullable, Obj } from '../../schema-helpers.js';

const Str = Type.String();
const Strings = Type.Array(Type.String());
/** A counts key: clbit strings, registers separated by a space. */
const KEY = '^[01]*( [01]+)*$';

const MitigatedExpectation = Obj(
  { value: Type.Number(), stderr: Type.Number({ minimum: 0 }), terms: Type.Array(Type.Number(), { maxItems: 256 }) },
  { description: '⟨H⟩ with the mitigation applied; stderr to first order' },
);
export const MitigationSchema = Obj(
  {
    applied_by: Type.String({
      enum: ['qrail', 'ionq'],
      description: '`qrail`: computed by qrail from the raw counts; `ionq`: IonQ debiased the run itself (docs/decisions/execution-mitigation-native.md)',
    }),
    native: Type.Boolean({ description: 'Whether the provider mitigated natively (IonQ debiasing): then `counts` are the provider’s mitigated aggregate, not raw counts' }),
    notes: Strings,
    readout: Type.Optional(
      Obj(
        {
          applied: Type.Boolean(),
          reason: Type.Optional(Str),
          method: Type.Optional(Str),
          quasi_probabilities: Type.Optional(MapOf(Type.Number(), KEY, 'Mitigated quasi-probabilities over the observed clbit strings (sum 1; entries may be negative; no register split)')),
          probabilities: Type.Optional(MapOf(Type.Number({ minimum: 0, maximum: 1 }), KEY, 'The nearest probability distribution to the quasi-probabilities')),
          overhead: Type.Optional(Type.Number({ minimum: 0, description: 'Σ|quasi|: how much the inversion amplifies sampling noise' })),
          hamming_distance: Type.Optional(Type.Integer({ minimum: 0, description: 'Largest Hamming distance kept in the reduced assignment matrix' })),
          expectation: Type.Optional(MitigatedExpectation),
          calibration: Type.Optional(
            Obj(
              { source: Type.String({ enum: ['deployment', 'provider'] }), calibrated_at: Str },
              { description: "Whose readout figures were inverted: the emulated device's calibration, or the provider's latest report (IBM: per-qubit prob_meas1_prep0 / prob_meas0_prep1)" },
            ),
          ),
          confusion: Type.Optional(
            Type.Array(Obj({ qubit: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]), p01: Type.Number(), p10: Type.Number() }), {
              maxItems: 1024,
              description: 'Per clbit: the physical qubit measured into it after layout and routing (null: none), its P(read 1 | 0) and P(read 0 | 1)',
            }),
          ),
        },
        { description: 'Readout-error mitigation (tensored confusion from the calibration, inverted in the measured subspace)' },
      ),
    ),
    debiasing: Type.Optional(
      Obj({ applied: Type.Boolean(), option: Str }, { description: 'IonQ debiased the run (the option it was sent); `counts` are its aggregate over the symmetrized variants' }),
    ),
    zne: Type.Optional(
      Obj(
        {
          scale_factors: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 5 }),
          extrapolation: Type.String({ enum: ['linear', 'richardson', 'exponential'] }),
          folding: Str,
          readout_mitigated: Type.Boolean({ description: 'Whether each scale’s value is readout-mitigated first' }),
          values: Type.Array(Obj({ scale: Type.Integer({ minimum: 1 }), value: Type.Number(), stderr: Type.Number({ minimum: 0 }) }), { maxItems: 5, description: 'The raw value at each scale' }),
          value: Type.Union([Type.Number(), Type.Null()], { description: 'The value extrapolated to zero noise (null when the fit cannot be made: see note)' }),
          stderr: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
          note: Type.Optional(Str),
        },
        { description: 'Zero-noise extrapolation of the expectation' },
      ),
    ),
  },
  { description: 'Error mitigation asked for with the run (docs/execution.md#error-mitigation); `counts` and `expectation` stay raw' },
);

export const DeviceMitigationSchema = Nullable(
  Obj(
    {
      readout: Obj({
        available: Type.Boolean(),
        reason: Type.Optional(Str),
        calibration: Type.Optional(Obj({ source: Type.Union([Type.Literal('provider'), Type.Literal('deployment')]), calibrated_at: Str })),
      }),
      zne: Obj({ available: Type.Boolean(), reason: Type.Optional(Str) }),
      debiasing: Obj({ available: Type.Boolean(), reason: Type.Optional(Str), applied_by: Type.Optional(Type.Literal('ionq')) }),
    },
    { description: 'Hardware: the error mitigation a held continuation may ask for on this device now (docs/execution.md#error-mitigation); null on simulators' },
  ),
);
