import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await buildTestApp({ CIRCUIT_MAX_QUBITS: '4' });
});
afterAll(async () => {
  await app.close();
});

const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object });
const BELL = {
  schema: '0.2',
  num_qubits: 2,
  num_clbits: 2,
  gates: [
    { op: 'h', qubits: [0] },
    { op: 'cx', qubits: [0, 1] },
  ],
  measurements: [
    { qubit: 0, clbit: 0 },
    { qubit: 1, clbit: 1 },
  ],
};

describe('GET /v1/circuits/schema', () => {
  it('serves the JSON Schema, the gate catalogue and the configured limits', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/circuits/schema' });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.current_schema).toBe('0.2');
    expect(d.json_schema.anyOf).toHaveLength(3);
    expect(d.json_schema.anyOf[0].properties.schema.const).toBe('0.2');
    expect(d.gates).toContainEqual({ name: 'ccz', arity: 3, params: 0, origin: 'qrail' });
    expect(d.limits.max_qubits).toBe(4);
    expect(d.non_gate_operations).toEqual(['measure', 'reset', 'barrier']);
    expect(d.operations).toEqual([
      { name: 'measure', qubits: 1, clbits: 1, params: 0 },
      { name: 'reset', qubits: 1, clbits: 0, params: 0 },
      { name: 'barrier', qubits: 'any', clbits: 0, params: 0 },
    ]);
  });

  it('is in the OpenAPI document', async () => {
    const r = await app.inject({ method: 'GET', url: '/openapi.json' });
    // As components, not only named in a description: the published contract itself.
    const schemas = r.json().components.schemas;
    // (the OpenAPI conversion writes a const as a one-value enum)
    expect(schemas.CircuitV02.properties.schema.enum).toEqual(['0.2']);
    expect(schemas.CircuitV02.required).toEqual(['schema', 'num_qubits', 'gates']);
    expect(schemas.CircuitV02.properties.gates.items.properties.op.enum).toEqual(expect.arrayContaining(['ccz', 'ryy', 'measure', 'reset', 'barrier']));
    expect(schemas.CircuitV01.properties.version.enum).toEqual(['0.1']);
    expect(schemas.QasmInput.required).toEqual(['format', 'source']);
    expect(Object.keys(r.json().paths)).toEqual(expect.arrayContaining(['/v1/circuits/validate', '/v1/circuits/analyze', '/v1/circuits/example', '/v1/circuits/schema']));
  });
});

describe('POST /v1/circuits/validate', () => {
  it('answers a valid circuit with the normalized circuit and a summary', async () => {
    const r = await post('/v1/circuits/validate', { circuit: BELL });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(d.circuit).toEqual({ ...BELL, metadata: {} });
    expect(d.summary).toEqual({ input_format: 'json-0.2', num_qubits: 2, num_clbits: 2, operation_count: 4, gate_count: 2, two_qubit_count: 1, measurement_count: 2, depth: 3 });
  });

  it('answers an invalid circuit with 200, valid=false and every error under /circuit', async () => {
    const r = await post('/v1/circuits/validate', {
      circuit: {
        ...BELL,
        num_qubits: 5,
        gates: [
          { op: 'foo', qubits: [0] },
          { op: 'cx', qubits: [1, 1] },
        ],
      },
    });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d.valid).toBe(false);
    expect(d.errors.map((e: { code: string; path: string }) => `${e.code}@${e.path}`).sort()).toEqual(
      ['DUPLICATE_QUBIT@/circuit/gates/1/qubits/1', 'TOO_MANY_QUBITS@/circuit/num_qubits', 'UNKNOWN_GATE@/circuit/gates/0/op'].sort(),
    );
    expect(d.circuit).toBeUndefined();
  });

  it('accepts QASM and offers QASM output', async () => {
    const source = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0], q[1];\nmeasure q -> c;';
    const r = await post('/v1/circuits/validate', { circuit: { format: 'qasm2', source }, output_format: 'qasm3' });
    const d = r.json().data;
    expect(d.valid).toBe(true);
    expect(d.circuit.gates).toEqual(BELL.gates);
    expect(d.qasm).toContain('OPENQASM 3.0;');
    expect(d.qasm).toContain('c[1] = measure q[1];');
  });

  it('reports QASM parse errors with line and column', async () => {
    const r = await post('/v1/circuits/validate', { circuit: { format: 'qasm3', source: 'OPENQASM 3;\nqubit[2] q;\nh q[7];' } });
    expect(r.json().data.errors).toEqual([{ path: '/circuit/source', code: 'QUBIT_OUT_OF_RANGE', message: expect.any(String), line: 3, column: 3 }]);
  });

  it('upgrades 0.1 with a deprecation warning', async () => {
    const r = await post('/v1/circuits/validate', { circuit: { version: '0.1', qubits: 1, operations: [{ gate: 'x', targets: [0] }] } });
    const d = r.json().data;
    expect(d.valid).toBe(true);
    expect(d.warnings[0]).toMatch(/deprecated/);
    expect(d.circuit.schema).toBe('0.2');
  });

  it('answers a malformed body with a 400 envelope', async () => {
    const missing = await post('/v1/circuits/validate', { circiut: BELL });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ status: 'error', error: { code: 'VALIDATION_FAILED' } });
    const broken = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: '{"circuit":' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.code).toBe('MALFORMED_JSON');
  });
});

describe('POST /v1/circuits/analyze', () => {
  it('analyzes a circuit', async () => {
    const r = await post('/v1/circuits/analyze', { circuit: BELL });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d).toMatchObject({ depth: 3, two_qubit_count: 1, t_count: 0, counts_by_kind: { h: 1, cx: 1, measure: 2 } });
    expect(d.compatibility.map((p: { provider: string }) => p.provider)).toEqual(['provider-one', 'provider-two']);
    expect(d.entanglement.possibly_entangled_pairs).toEqual([[0, 1]]);
  });

  it('filters devices', async () => {
    const r = await post('/v1/circuits/analyze', { circuit: BELL, devices: ['p1-falcon-7'] });
    expect(r.json().data.compatibility).toEqual([expect.objectContaining({ provider: 'provider-one', status: 'needs_translation' })]);
    const bad = await post('/v1/circuits/analyze', { circuit: BELL, devices: ['nope'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0]).toMatchObject({ path: '/devices/0', code: 'UNKNOWN_DEVICE' });
  });

  it('answers an invalid circuit with 400 CIRCUIT_INVALID listing the problems', async () => {
    const r = await post('/v1/circuits/analyze', { circuit: { ...BELL, gates: [{ op: 'cx', qubits: [0, 9] }] } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toMatchObject({ code: 'CIRCUIT_INVALID', details: [{ path: '/circuit/gates/0/qubits/1', code: 'QUBIT_OUT_OF_RANGE' }] });
  });
});

describe('GET /v1/circuits/example', () => {
  it('returns all examples without a name', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/circuits/example' });
    const d = r.json().data;
    expect(d.names).toEqual(['bell', 'ghz', 'optimizable']);
    expect(d.examples.map((e: { circuit: { schema: string } }) => e.circuit.schema)).toEqual(['0.2', '0.2', '0.2']);
  });

  it('returns one example by name', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/circuits/example?name=ghz' });
    expect(r.json().data.circuit.num_qubits).toBe(3);
  });

  it('answers an unknown name with a 404 envelope listing the valid names', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/circuits/example?name=teleport' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toMatchObject({ status: 'error', error: { code: 'EXAMPLE_NOT_FOUND', details: { valid_names: ['bell', 'ghz', 'optimizable'] } } });
  });
});
