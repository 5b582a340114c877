/**
 * The Account Jobs price factor of each simulation method (issue #36: the catalog prices each
 * method). A run costs base + per_100_shots × ceil(shots / 100) × factor, the factor following what
 * the method's work grows with: the state vector 2^(n−10), the density matrix 4^(n−10), the
 * stabilizer ceil(n/100) (tableau and frames grow about linearly per gate), the matrix product state
 * ceil(n/10) × ceil(χ/16)² with χ the smaller of max_bond_dimension and the circuit's bond bound.
 * See docs/decisions/jobs-simulation-method-pricing.md.
 */
import type { Circuit } from '../../circuits/ir.js';
import { DEFAULT_MAX_BOND_DIMENSION, METHODS, mpsBondBoundLog2, type Method, type MethodOptions } from '../../simulation/index.js';
import { pow2 } from '../capability.js';

export const METHOD_PRICING_FORMULA =
  'factor by method: statevector 2^max(0, n − 10); density_matrix 4^max(0, n − 10); stabilizer ceil(n / 100); matrix_product_state ceil(n / 10) × ceil(χ / 16)² (χ = min(max_bond_dimension, the circuit’s bond bound))';

/** The catalog's pricing parameters, one per method. */
export const METHOD_FACTORS = {
  factor_statevector: '2^max(0, num_qubits − 10)',
  factor_density_matrix: '4^max(0, num_qubits − 10)',
  factor_stabilizer: 'ceil(num_qubits / 100)',
  factor_matrix_product_state: 'ceil(num_qubits / 10) × ceil(χ / 16)²',
} as const;

export function methodFactor(c: Circuit, method: Method, options: MethodOptions = {}): bigint {
  const n = c.numQubits;
  switch (method) {
    case 'statevector':
      return pow2(n - 10);
    case 'density_matrix':
      return pow2(2 * (n - 10));
    case 'stabilizer':
      return BigInt(Math.max(1, Math.ceil(n / 100)));
    case 'matrix_product_state': {
      const bound = mpsBondBoundLog2(c);
      const chi = Math.min(options.maxBondDimension ?? DEFAULT_MAX_BOND_DIMENSION, bound >= 30 ? 2 ** 30 : 2 ** bound);
      const k = BigInt(Math.ceil(chi / 16));
      return BigInt(Math.max(1, Math.ceil(n / 10))) * k * k;
    }
  }
}

/** The request schema fields of a method (Account Jobs capabilities; the platform's are in workload-schemas.ts). */
export const METHOD_PROPS = {
  method: {
    enum: [...METHODS],
    description: 'Simulation method (default auto: Clifford-only → stabilizer, within the statevector limit → statevector, low-entanglement structure → matrix_product_state); priced per method',
  },
  method_options: {
    type: 'object',
    additionalProperties: false,
    properties: {
      max_bond_dimension: { type: 'integer', minimum: 1, maximum: 1024 },
      truncation_threshold: { type: 'number', minimum: 0, maximum: 0.999999 },
    },
    description: 'matrix_product_state options',
  },
} as const;
