/**
 * The `condition` of a wire-format gate (a dynamic circuit): `{"clbits": [0, 2], "value": 1}` applies
 * the gate only on shots where the integer those clbits form, clbits[0] least significant, equals
 * `value` (docs/decisions/circuits-dynamic-wire-condition.md). A whole register `c` of size n is
 * `clbits: [first … first+n-1]`; `if (c[i])` is `clbits: [i], value: 1`.
 */
import type { Condition } from './ir.js';
import { checkKeys, isObject, type WireProblems } from './wire-checks.js';

/** Clbits one condition may read: its value then fits an exact integer (and one 32-bit word). */
export const MAX_CONDITION_BITS = 32;

/**
 * The condition at `path`, or undefined after reporting every problem (CONDITION_INVALID for the
 * shape, duplicates and the value's range; CLBIT_OUT_OF_RANGE for a clbit ≥ num_clbits). A clbit
 * nothing has measured yet is allowed: it reads 0, as a fresh classical bit does in OpenQASM 3.
 */
export function readCondition(v: unknown, path: string, numClbits: number | undefined, out: WireProblems): Condition | undefined {
  if (!isObject(v)) {
    out.push({ path, code: 'CONDITION_INVALID', message: 'a condition is an object {clbits: [c, …], value: k}' });
    return undefined;
  }
  const before = countOf(out);
  checkKeys(v, ['clbits', 'value'], path, out);
  const bits = v['clbits'];
  const clbits: number[] = [];
  if (!Array.isArray(bits) || bits.length < 1 || bits.length > MAX_CONDITION_BITS) {
    out.push({ path: `${path}/clbits`, code: 'CONDITION_INVALID', message: `'clbits' is an array of 1 to ${MAX_CONDITION_BITS} clbit indices` });
  } else {
    bits.forEach((b: unknown, i) => {
      const p = `${path}/clbits/${i}`;
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0) out.push({ path: p, code: 'WRONG_TYPE', message: `a clbit index must be a non-negative integer, got ${JSON.stringify(b) ?? typeof b}` });
      else if (numClbits !== undefined && b >= numClbits) out.push({ path: p, code: 'CLBIT_OUT_OF_RANGE', message: `clbit ${b} is out of range: the circuit has ${numClbits} clbits` });
      else if (clbits.includes(b)) out.push({ path: p, code: 'CONDITION_INVALID', message: `clbit ${b} appears twice in one condition` });
      else clbits.push(b);
    });
  }
  const value = v['value'];
  if (value === undefined) out.push({ path: `${path}/value`, code: 'REQUIRED', message: "'value' is required" });
  else if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    out.push({ path: `${path}/value`, code: 'CONDITION_INVALID', message: `'value' must be a non-negative integer, got ${JSON.stringify(value) ?? typeof value}` });
  } else if (Array.isArray(bits) && bits.length >= 1 && bits.length <= MAX_CONDITION_BITS && value >= 2 ** bits.length) {
    out.push({ path: `${path}/value`, code: 'CONDITION_INVALID', message: `'value' ${value} does not fit ${bits.length} clbit${bits.length === 1 ? '' : 's'} (0 to ${2 ** bits.length - 1})` });
  }
  if (countOf(out) > before) return undefined;
  return { clbits, value: value as number };
}

/** How many problems were pushed so far (push answers the new length). */
function countOf(out: WireProblems): number {
  return out.push();
}
