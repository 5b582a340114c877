import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import type { App } from '../../src/http/app-types.js';

/**
 * Issue 34 items 9 and 10: symbolic-parameter problems carry their own code at their own path
 * (an undeclared bare name is PARAMETER_UNKNOWN, a duplicate declaration is reported alone), and
 * a sweep's problems are all listed together — every point, every kind — with a bound.
 */
describe('symbolic parameter problems', () => {
  let app: App;
  let auth: { authorization: string };
  beforeAll(async () => {
    app = await buildTestApp();
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
  });

  const base = { schema: '0.2', num_qubits: 1, num_clbits: 1, measurements: [{ qubit: 0, clbit: 0 }] };
  const validate = async (circuit: Record<string, unknown>) => {
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit } });
    expect(r.statusCode).toBe(200);
    return r.json().data as { valid: boolean; errors: { path: string; code: string; message: string }[] };
  };
  const codes = (errors: { path: string; code: string }[]) => errors.map((e) => `${e.code}@${e.path}`);

  it('an undeclared bare name is PARAMETER_UNKNOWN at its path, with or without declared parameters', async () => {
    const none = await validate({ ...base, gates: [{ op: 'rx', qubits: [0], params: ['phi'] }] });
    expect(codes(none.errors)).toEqual(['PARAMETER_UNKNOWN@/circuit/gates/0/params/0']);
    expect(none.errors[0]!.message).toContain("'phi'");
    const other = await validate({
      ...base,
      parameters: ['theta'],
      gates: [
        { op: 'rx', qubits: [0], params: ['theta'] },
        { op: 'ry', qubits: [0], params: ['2*phi'] },
      ],
    });
    expect(codes(other.errors)).toEqual(['PARAMETER_UNKNOWN@/circuit/gates/1/params/0']);
    // Numeric expressions with the built-in functions and constants stay fine, and a syntax error stays WRONG_TYPE.
    const numeric = await validate({ ...base, gates: [{ op: 'rx', qubits: [0], params: ['sin(pi/4)*2'] }] });
    expect(numeric.valid).toBe(true);
    const syntax = await validate({ ...base, gates: [{ op: 'rx', qubits: [0], params: ['1e5 +'] }] });
    expect(codes(syntax.errors)).toEqual(['WRONG_TYPE@/circuit/gates/0/params/0']);
  });

  it('a parameter declared twice: only the duplicate is reported, at the second declaration', async () => {
    const d = await validate({
      ...base,
      parameters: ['theta', 'phi', 'theta'],
      gates: [
        { op: 'rx', qubits: [0], params: ['theta'] },
        { op: 'ry', qubits: [0], params: ['phi/2'] },
      ],
    });
    expect(d.valid).toBe(false);
    expect(codes(d.errors)).toEqual(['DUPLICATE_PARAMETER@/circuit/parameters/2']);
  });

  const sweep = { ...base, parameters: ['t'], gates: [{ op: 'rx', qubits: [0], params: ['1/t'] }] };
  const run = (parameter_values: unknown[], token: string) =>
    app.inject({ method: 'POST', url: '/v1/execute/provider-two', headers: auth, payload: { circuit: sweep, shots: 10, parameter_values, client_token: token } });

  it('every non-finite point of a sweep is reported, each at its value', async () => {
    const r = await run([{ t: 1 }, { t: 0 }, { t: 0 }], 'sweep-1');
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('EXECUTION_PARAMETERS_INVALID');
    expect(codes(r.json().error.details)).toEqual(['PARAMETER_VALUE_INVALID@/parameter_values/1/t', 'PARAMETER_VALUE_INVALID@/parameter_values/2/t']);
  });

  it('binding problems and non-finite points are reported together', async () => {
    const r = await run([{}, { t: 0 }], 'sweep-2');
    expect(r.statusCode).toBe(400);
    expect(codes(r.json().error.details)).toEqual(['PARAMETER_UNBOUND@/parameter_values/0', 'PARAMETER_VALUE_INVALID@/parameter_values/1/t']);
  });

  it('the list is bounded, and says so', async () => {
    const r = await run(
      Array.from({ length: 150 }, () => ({ t: 0 })),
      'sweep-3',
    );
    expect(r.statusCode).toBe(400);
    const details = r.json().error.details as { path: string; code: string; message: string }[];
    expect(details).toHaveLength(101);
    expect(details.slice(0, 100).every((d) => d.code === 'PARAMETER_VALUE_INVALID')).toBe(true);
    expect(details[100]).toMatchObject({ path: '/parameter_values', code: 'TOO_MANY_PROBLEMS' });
    expect(details[100]!.message).toContain('150');
  });
});
