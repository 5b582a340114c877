import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the coupling domain. Add each new code here and to docs/errors.md. */
export const COUPLING_ERRORS = {
  COUPLING_PAIR_INVALID: defineCode(
    'COUPLING_PAIR_INVALID',
    400,
    'A requested qubit pair names a qubit the circuit does not have, or the same qubit twice; `details` lists each problem with its path (e.g. `/pairs/3/1`).',
  ),
  COUPLING_QUBIT_MAP_INVALID: defineCode(
    'COUPLING_QUBIT_MAP_INVALID',
    400,
    'The compare `qubit_map` does not map every qubit of `before` to a distinct qubit of `after`; `details` lists each problem with its path.',
  ),
} as const;
