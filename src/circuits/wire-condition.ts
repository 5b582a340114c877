/**
 * The `condition` of a wire-format gate (a dynamic circuit): `{"clbits": [0, 2], "value": 1}` applies
 * the gate only on shots where the integer those clbits form, clbits[0] least significant, equals
 * `value` (docs/decisions/circuits-dynamic-wire-condition.md). A whole register `c` of size n is
 * `clbits: [first … first+n-1]`; `if (c[i])` is `clbits: [i], value: 1`. A register may be wider
 * than 53 bits, so a value above 2^53 − 1 is a decimal string (`"9223372036854775808"`): a JSON
 * number that large has already lost digits (docs/decisions/circuits-wide-conditions.md).
 */
import { canonicalConditionValue, type Condition } from './ir.js';
import { checkKeys, isObject, type WireProblems } from './wire-checks.js';

/**
 * Clbits one condition may read, at most: the most clbits any deployment allows (4 per qubit,
 * CIRCUIT_MAX_QUBITS ≤ 1024). In practice the circuit's own num_clbits bounds it (distinct clbits).
 */
export const MAX_CONDITION_BITS = 4096;
/** Decimal digits of the largest value such a condition can compare (2^4096 − 1). */
export const MAX_CONDITION_DIGITS = 1234;

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
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0)
        out.push({ path: p, code: 'WRONG_TYPE', message: `a clbit index must be a non-negative integer, got ${JSON.stringify(b) ?? typeof b}` });
      else if (numClbits !== undefined && b >= numClbits) out.push({ path: p, code: 'CLBIT_OUT_OF_RANGE', message: `clbit ${b} is out of range: the circuit has ${numClbits} clbits` });
      else if (clbits.includes(b)) out.push({ path: p, code: 'CONDITION_INVALID', message: `clbit ${b} appears twice in one condition` });
      else clbits.push(b);
    });
  }
  const value = conditionValueOf(v['value'], `${path}/value`, out);
  if (value !== undefined && Array.isArray(bits) && bits.length >= 1 && bits.length <= MAX_CONDITION_BITS && value >= 1n << BigInt(bits.length)) {
    const max = (1n << BigInt(bits.length)) - 1n;
    out.push({ path: `${path}/value`, code: 'CONDITION_INVALID', message: `'value' ${short(value)} does not fit ${bits.length} clbit${bits.length === 1 ? '' : 's'} (0 to ${short(max)})` });
  }
  if (countOf(out) > before || value === undefined) return undefined;
  return { clbits, value: canonicalConditionValue(value) };
}

/** A long decimal shortened for a message. */
const short = (v: bigint): string => {
  const t = v.toString();
  return t.length > 40 ? `${t.slice(0, 20)}…(${t.length} digits)` : t;
};

/** `value`: a safe non-negative integer, or a decimal string of any size (a value above 2^53 − 1 must be one). */
function conditionValueOf(value: unknown, path: string, out: WireProblems): bigint | undefined {
  if (value === undefined) {
    out.push({ path, code: 'REQUIRED', message: "'value' is required" });
    return undefined;
  }
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    const message =
      Number.isInteger(value) && value > 0
        ? `'value' ${value} is above 2^53 − 1, where a JSON number loses digits: send it as a decimal string ("${BigInt(value)}" if that is the value meant)`
        : `'value' must be a non-negative integer, got ${JSON.stringify(value) ?? typeof value}`;
    out.push({ path, code: 'CONDITION_INVALID', message });
    return undefined;
  }
  if (typeof value === 'string' && /^[0-9]+$/.test(value) && value.length <= MAX_CONDITION_DIGITS + 1) return BigInt(value);
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value;
  out.push({ path, code: 'CONDITION_INVALID', message: `'value' must be a non-negative integer, or a decimal string of digits for a value above 2^53 − 1, got ${shown}` });
  return undefined;
}

/** How many problems were pushed so far (push answers the new length). */
function countOf(out: WireProblems): number {
  return out.push();
}
