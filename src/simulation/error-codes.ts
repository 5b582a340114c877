import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the simulation domain. Add each new code here and to docs/errors.md. */
export const SIMULATION_ERRORS = {
} as const;
