import { fail, type ErrorDetail } from '../errors/app-error.js';
import { COUPLING_ERRORS } from './error-codes.js';
import { allPairs } from './qualitative.js';
import type { Pair } from './reduced-states.js';

/**
 * The pairs a request asks about: all pairs a < b when omitted, otherwise the given ones,
 * each answered as [min, max], in request order, a pair given twice (in either order)
 * answered once. Shape (arrays of two non-negative integers) is the schema's job; this
 * checks them against the circuit and reports every problem at once.
 */
export function resolvePairs(requested: readonly (readonly number[])[] | undefined, numQubits: number, path = '/pairs'): Pair[] {
  if (requested === undefined) return allPairs(numQubits);
  const problems: ErrorDetail[] = [];
  const out: Pair[] = [];
  const seen = new Set<number>();
  requested.forEach((pair, i) => {
    let ok = pair.length === 2;
    if (!ok) problems.push({ path: `${path}/${i}`, code: 'NOT_A_PAIR', message: `A pair has exactly two qubits; got ${pair.length}.` });
    pair.forEach((q, j) => {
      if (!Number.isInteger(q) || q < 0 || q >= numQubits) {
        ok = false;
        problems.push({ path: `${path}/${i}/${j}`, code: 'QUBIT_OUT_OF_RANGE', message: `Qubit ${q} is not in the circuit (qubits 0..${numQubits - 1}).` });
      }
    });
    if (ok && pair[0] === pair[1]) {
      ok = false;
      problems.push({ path: `${path}/${i}/1`, code: 'DUPLICATE_QUBIT', message: `A pair needs two different qubits; got ${pair[0]} twice.` });
    }
    if (!ok) return;
    const a = Math.min(pair[0]!, pair[1]!);
    const b = Math.max(pair[0]!, pair[1]!);
    const key = a * numQubits + b;
    if (seen.has(key)) return;
    seen.add(key);
    out.push([a, b]);
  });
  if (problems.length > 0) {
    throw fail(COUPLING_ERRORS.COUPLING_PAIR_INVALID, `${problems.length} requested pair${problems.length === 1 ? ' is' : 's are'} not valid for this circuit.`, problems);
  }
  return out;
}
