import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import { AppError } from '../../src/errors/app-error.js';

describe('robustness', () => {
  it('parseCircuitInput never throws on arbitrary JSON, and every problem has a path, code and message', () => {
    const gateLike = fc.record(
      { op: fc.oneof(fc.constantFrom('h', 'cx', 'rz', 'measure', 'barrier', 'nope'), fc.anything()), qubits: fc.anything(), params: fc.anything(), clbits: fc.anything() },
      { requiredKeys: [] },
    );
    const circuitLike = fc.record(
      {
        schema: fc.constantFrom('0.2', '0.1', 3),
        num_qubits: fc.anything(),
        num_clbits: fc.anything(),
        gates: fc.oneof(fc.array(gateLike), fc.anything()),
        measurements: fc.anything(),
        metadata: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), circuitLike), (input) => {
        const r = parseCircuitInput(input);
        if (!r.ok) {
          expect(r.errors.length).toBeGreaterThan(0);
          for (const e of r.errors) {
            expect(e.path === '' || e.path.startsWith('/')).toBe(true);
            expect(e.code).toMatch(/^[A-Z_]+$/);
            expect(e.message).not.toBe('');
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('parseQasm fails only with QASM_PARSE_ERROR on arbitrary text', () => {
    const tokens = fc.constantFrom(
      'OPENQASM',
      '2.0',
      ';',
      'qreg',
      'q',
      '[',
      ']',
      '2',
      'h',
      'cx',
      ',',
      '(',
      ')',
      'pi',
      '/',
      'gate',
      '{',
      '}',
      'measure',
      '->',
      'c',
      'creg',
      '=',
      'ctrl',
      '@',
      'inv',
      '"',
      '/*',
      '//',
      '\n',
      ' ',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(tokens, { maxLength: 40 }).map((t) => t.join(' ')),
        ),
        (src) => {
          try {
            parseQasm(src);
          } catch (e) {
            expect(e).toBeInstanceOf(AppError);
            expect((e as AppError).code).toBe('QASM_PARSE_ERROR');
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
