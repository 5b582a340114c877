/**
 * OpenQASM spelling of a gate's condition (docs/decisions/circuits-dynamic-qasm.md):
 * - the clbits are exactly one classical register, in order: `if (c == 5)` (OpenQASM 2 and 3; the
 *   value in full decimal however wide the register, as a bigint prints);
 * - otherwise (OpenQASM 3 only) one test per bit, nested: `if (c[0]) if (!c[2]) x q[1];` — the
 *   conjunction of bit tests, which OpenQASM 2 cannot write (its `if` compares a whole register).
 */
import { fail } from '../../errors/app-error.js';
import { CIRCUITS_ERRORS } from '../error-codes.js';
import { conditionBit, type Circuit, type Condition } from '../ir.js';

/** The `if (…) ` prefixes of a conditioned gate's statement, or a 400 CIRCUIT_INVALID for OpenQASM 2. */
export function conditionPrefix(c: Circuit, cond: Condition, version: 2 | 3, clbit: (b: number) => string, opIndex: number): string {
  const regs = c.registers ?? (c.numClbits > 0 ? [{ name: 'c', size: c.numClbits }] : []);
  let start = 0;
  for (const r of regs) {
    if (r.size === cond.clbits.length && cond.clbits.every((b, i) => b === start + i)) {
      return version === 2 ? `if(${r.name}==${cond.value}) ` : `if (${r.name} == ${cond.value}) `;
    }
    start += r.size;
  }
  if (version === 2) {
    const message = `gate ${opIndex} is conditioned on clbits ${cond.clbits.join(', ')}, which are not one whole classical register: OpenQASM 2 can only compare a whole register (export as qasm3)`;
    throw fail(CIRCUITS_ERRORS.CIRCUIT_INVALID, message, [{ path: `/gates/${opIndex}/condition`, code: 'CONDITION_INVALID', message }]);
  }
  return cond.clbits.map((b, i) => (conditionBit(cond, i) === 1 ? `if (${clbit(b)}) ` : `if (!${clbit(b)}) `)).join('');
}
