import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate, withOps, type Operation } from '../../src/circuits/ir.js';
import { qasmOutput } from '../../src/circuits/qasm/export-qasm.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';

const DEFINITIONS = `gate pair(t) a, b { h a; cx a, b; rz(t/2) b; }
gate nop a { }
gate twice a { x a; x a; }
`;

/** A program of calls of user gates and plain gates on 3 qubits. */
const statement = fc.oneof(
  fc.tuple(fc.constantFrom('pair(0.5)', 'pair(pi/3)'), fc.shuffledSubarray([0, 1, 2], { minLength: 2, maxLength: 2 })).map(([g, [a, b]]) => `${g} q[${a}], q[${b}];`),
  fc.integer({ min: 0, max: 2 }).map((q) => `nop q[${q}];`),
  fc.integer({ min: 0, max: 2 }).map((q) => `twice q[${q}];`),
  fc.integer({ min: 0, max: 2 }).map((q) => `h q[${q}];`),
);

/** A rewrite of the ops: at some positions one op replaced, removed, or one inserted. */
const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('replace', 'remove', 'insert') });

describe('user gate calls in OpenQASM export (inline_gates: false)', () => {
  it('whatever a rewrite did to the ops, the text reads back as exactly those ops', () => {
    fc.assert(
      fc.property(fc.array(statement, { maxLength: 12 }), fc.array(edit, { maxLength: 4 }), fc.constantFrom<'qasm2' | 'qasm3'>('qasm2', 'qasm3'), (stmts, edits, fmt) => {
        const c = parseQasm(`OPENQASM 3.0;\n${DEFINITIONS}qubit[3] q;\n${stmts.join('\n')}\n`, { keepGateDefinitions: true });
        const ops: Operation[] = [...c.ops];
        for (const e of edits) {
          const at = ops.length === 0 ? 0 : e.at % ops.length;
          if (e.kind === 'insert' || ops.length === 0) ops.splice(at, 0, gate('y', [at % 3]));
          else if (e.kind === 'remove') ops.splice(at, 1);
          else ops[at] = gate('z', [at % 3]);
        }
        const changed = withOps(c, ops);
        const warnings: string[] = [];
        const text = qasmOutput(changed, fmt, { inlineGates: false, warnings }).qasm!;
        expect(parseQasm(text).ops).toEqual(ops);
        if (edits.length === 0) {
          // Unchanged: every call is written as the call.
          expect(warnings).toEqual([]);
          expect(text.split('\n').filter((l) => /^(pair|nop|twice)[ (]/.test(l))).toHaveLength(stmts.filter((x) => !x.startsWith('h ')).length);
        }
      }),
      { numRuns: 300 },
    );
  });
});
