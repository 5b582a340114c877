import { CircuitInputSchema } from '../../circuits/wire-schema.js';
import { getExample } from '../../circuits/examples.js';
import type { JsonSchema } from '../capability.js';

/** A plain JSON copy of a TypeBox schema without `$id`s, so that it can be embedded many times. */
export function plainSchema(s: unknown): JsonSchema {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>)
          .filter(([k]) => k !== '$id')
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  return strip(JSON.parse(JSON.stringify(s))) as JsonSchema;
}

/** The published schema of a `circuit` field: wire format 0.2 (legacy 0.1 and OpenQASM also accepted). */
export const CIRCUIT_FIELD_SCHEMA: JsonSchema = plainSchema(CircuitInputSchema);

/**
 * What the job request is checked against before `prepare`: the circuit only as an object,
 * because `requireCircuit` then reports every circuit problem with its own stable codes.
 */
export const CIRCUIT_FIELD_SHALLOW: JsonSchema = { type: 'object' };

export const BELL = getExample('bell') as unknown as Record<string, unknown>;
