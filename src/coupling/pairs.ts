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
/** Problems reported for `pairs` (and `qubit_map`) at most, before one TOO_MANY_PROBLEMS entry. */
export const MAX_PAIR_PROBLEMS = 100;

export function resolvePairs(requested: readonly (readonly number[])[] | undefined, numQubits: number, path = '/pairs'): Pair[] {
  if (requested === undefined) return allPairs(numQubits);
  const problems: ErrorDetail[] = [];
  const out: Pair[] = [];
  const seen = new Set<number>();
  for (const [i, pair] of requested.entries()) {
    // Bounded like circuit problems: 100 000 bad pairs must not make a 10 MB answer.
    if (problems.length >= MAX_PAIR_PROBLEMS) {
      problems.push({ path, code: 'TOO_MANY_PROBLEMS', message: `more than ${MAX_PAIR_PROBLEMS} problems: the first ones are reported, the rest were not checked` });
      break;
    }
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
    if (!ok) continue;
    const a = Math.min(pair[0]!, pair[1]!);
    const b = Math.max(pair[0]!, pair[1]!);
    const key = a * numQubits + b;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([a, b]);
  }
  if (problems.length > 0) {
    throw fail(COUPLING_ERRORS.COUPLING_PAIR_INVALID, `${problems.length} requested pair${problems.length === 1 ? ' is' : 's are'} not valid for this circuit.`, problems);
  }
  return out;
}
