/**
 * The OpenQASM 3 text the IBM driver sends as a Sampler PUB: an ISA circuit, as IBM's REST guide
 * for the Sampler requires (docs/decisions/execution-ibm-isa.md). The circuit it gets is already
 * translated (the backend's basis, routed on its coupling map), so this only spells it:
 * - physical qubits `$n` (OpenQASM 3's hardware qubits, what Qiskit's exporter writes for a
 *   transpiled circuit), never a declared `qubit[n] q` register, whose qubits a compiler may place;
 * - one classical register `c` (the Sampler names its result data after it: the driver reads `c`);
 * - a conditioned gate as an `if` block (OpenQASM 3 feed-forward, IBM's `if_else`): `if (c == v)`
 *   when it reads the whole register, else one nested test per bit, `if (c[i] == true)` /
 *   `if (c[i] == false)` — the condition forms Qiskit's OpenQASM 3 importer reads (it has no `!`).
 * The driver checks the text against the backend's ISA (ibm-isa-check.ts) before sending it.
 */
import type { Circuit, ConditionedOp, Operation } from '../../circuits/ir.js';
import { conditionBit } from '../../circuits/ir.js';
import { formatAngle } from '../../circuits/qasm/format-angle.js';

const hw = (q: number): string => `$${q}`;

function statement(op: Exclude<Operation, ConditionedOp>): string | null {
  switch (op.kind) {
    case 'gate': {
      const ps = op.params.length > 0 ? `(${op.params.map(formatAngle).join(', ')})` : '';
      return `${op.name}${ps} ${op.qubits.map(hw).join(', ')};`;
    }
    case 'measure':
      return `c[${op.clbit}] = measure ${hw(op.qubit)};`;
    case 'reset':
      return `reset ${hw(op.qubit)};`;
    case 'barrier':
      // An empty barrier has no spelling and does nothing.
      return op.qubits.length === 0 ? null : `barrier ${op.qubits.map(hw).join(', ')};`;
  }
}

function conditionedStatement(op: ConditionedOp, numClbits: number): string {
  const inner = statement(op.gate)!;
  const { clbits } = op.condition;
  if (clbits.length === numClbits && clbits.every((b, i) => b === i)) return `if (c == ${op.condition.value}) { ${inner} }`;
  let text = inner;
  for (let i = clbits.length - 1; i >= 0; i--) text = `if (c[${clbits[i]}] == ${conditionBit(op.condition, i) === 1 ? 'true' : 'false'}) { ${text} }`;
  return text;
}

/** The Sampler's OpenQASM 3 for a translated circuit (physical qubits, register `c`). */
export function toIbmQasm3(c: Circuit): string {
  const lines = ['OPENQASM 3.0;', 'include "stdgates.inc";'];
  if (c.numClbits > 0) lines.push(`bit[${c.numClbits}] c;`);
  for (const op of c.ops) {
    const line = op.kind === 'conditioned' ? conditionedStatement(op, c.numClbits) : statement(op);
    if (line !== null) lines.push(line);
  }
  return lines.join('\n') + '\n';
}
