import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';

type Schema = Record<string, any>;

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
  metadata: {},
};

/** Formats whose own definition bounds the text (fixed-shape patterns). */
const BOUNDED_FORMATS = new Set(['uuid', 'date-time']);

/**
 * Every problem that would let validation cost more than linear time in a small bound:
 * arrays without maxItems, strings without maxLength, open objects without maxProperties,
 * and `uniqueItems` (quadratic in Ajv for non-scalar items). Untyped values (the circuit
 * fields) are opaque to the schema: the edge text-safety walk bounds their depth and the
 * body limit their size.
 */
function unbounded(root: Schema, components: Record<string, Schema>, where: string): string[] {
  const out: string[] = [];
  const stack: { s: unknown; at: string; depth: number }[] = [{ s: root, at: where, depth: 0 }];
  while (stack.length > 0) {
    const { s, at, depth } = stack.pop()!;
    if (s === null || typeof s !== 'object' || depth > 40) continue;
    const n = s as Schema;
    if (typeof n['$ref'] === 'string') {
      stack.push({ s: components[n['$ref'].replace('#/components/schemas/', '')], at, depth: depth + 1 });
      continue;
    }
    if ('uniqueItems' in n) out.push(`${at}: uniqueItems`);
    const types = Array.isArray(n['type']) ? n['type'] : [n['type']];
    if (types.includes('array') && typeof n['maxItems'] !== 'number') out.push(`${at}: array without maxItems`);
    if (types.includes('string') && typeof n['maxLength'] !== 'number' && n['enum'] === undefined && n['const'] === undefined && !BOUNDED_FORMATS.has(n['format'])) {
      out.push(`${at}: string without maxLength`);
    }
    if (types.includes('object') && n['additionalProperties'] !== false && typeof n['maxProperties'] !== 'number') out.push(`${at}: open object without maxProperties`);
    if (n['items'] !== undefined) stack.push({ s: n['items'], at: `${at}/items`, depth: depth + 1 });
    if (n['additionalProperties'] !== null && typeof n['additionalProperties'] === 'object') stack.push({ s: n['additionalProperties'], at: `${at}/additionalProperties`, depth: depth + 1 });
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(n[k])) n[k].forEach((x: unknown, i: number) => stack.push({ s: x, at: `${at}/${k}/${i}`, depth: depth + 1 }));
    for (const [p, v] of Object.entries((n['properties'] ?? {}) as Record<string, unknown>)) stack.push({ s: v, at: `${at}/${p}`, depth: depth + 1 });
  }
  return out;
}

describe('request schemas are bounded and linear to validate', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it('every request body, query, path and header schema of the live OpenAPI document is bounded, with no uniqueItems', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
    const problems: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const p of (op['parameters'] ?? []) as Schema[]) {
          checked++;
          problems.push(...unbounded(p['schema'], components, `${method.toUpperCase()} ${path} ${p['in']}:${p['name']}`));
        }
        for (const [ct, c] of Object.entries((op['requestBody']?.content ?? {}) as Record<string, Schema>)) {
          checked++;
          problems.push(...unbounded(c['schema'], components, `${method.toUpperCase()} ${path} body(${ct})`));
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it('every catalog request schema is bounded too (the circuit field is the circuit parser’s)', async () => {
    const cat = (await app.inject({ method: 'GET', url: '/v1/catalog' })).json();
    const problems: string[] = [];
    for (const c of cat.capabilities as { capability_id: string; request_schema: Schema }[]) {
      const { circuit: _opaque, ...rest } = (c.request_schema['properties'] ?? {}) as Record<string, Schema>;
      problems.push(...unbounded({ ...c.request_schema, properties: rest }, {}, c.capability_id));
    }
    expect(problems).toEqual([]);
  });

  it('duplicate credential scopes are a 400 naming the repeated item', async () => {
    const u = await signUp(app);
    const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent', scopes: ['jobs:read', 'jobs:write', 'jobs:read'] } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('VALIDATION_FAILED');
    expect(r.json().error.details).toEqual([expect.objectContaining({ path: '/scopes/2', code: 'DUPLICATE_ITEM' })]);
  });

  it('duplicate device ids on analyze are a 400 naming the repeated item', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: BELL, devices: ['p1-falcon-7', 'p1-falcon-7'] } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details).toEqual([expect.objectContaining({ path: '/devices/1', code: 'DUPLICATE_ITEM' })]);
  });

  it('an over-long device list is refused by the schema, not walked', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: BELL, devices: Array.from({ length: 50_000 }, () => 'x') } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details[0]).toMatchObject({ path: '/devices', code: 'TOO_MANY_ITEMS' });
  });
});

describe('validation answers are bounded', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('a body with a thousand schema problems lists the first 100 and says there were more', async () => {
    const qubit_map = Array.from({ length: 1000 }, (_, i) => `q${i}`);
    const r = await app.inject({ method: 'POST', url: '/v1/analysis/coupling/compare', payload: { before: BELL, after: BELL, qubit_map } });
    expect(r.statusCode).toBe(400);
    const details = r.json().error.details as { path: string; code: string }[];
    expect(details).toHaveLength(101);
    expect(details[0]).toMatchObject({ path: '/qubit_map/0', code: 'WRONG_TYPE' });
    expect(details[100]).toMatchObject({ code: 'TOO_MANY_PROBLEMS' });
  });
});

describe('the analyze job checks repeated devices in linear time', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it('a circuit.analyze job with a repeated device is a 400 at /request/devices/<i>', async () => {
    const u = await signUp(app);
    const cred = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'agent', scopes: ['jobs:write'] } });
    expect(cred.statusCode).toBe(201);
    const r = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { authorization: `Bearer ${cred.json().data.secret}` },
      payload: { capability_id: 'circuit.analyze', request: { circuit: BELL, devices: ['p1-falcon-7', 'p2-grid-9', 'p1-falcon-7'] }, idempotency_key: 'dup-devices-1', max_total_price: '1.000000' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details).toEqual([expect.objectContaining({ path: '/request/devices/2', code: 'DUPLICATE_ITEM' })]);
  });
});

describe('one validator everywhere', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it('circuit routes (which add shared schemas) validate bodies as strictly as the rest: unknown members refused, no coercion', async () => {
    for (const url of ['/v1/circuits/validate', '/v1/circuits/analyze', '/v1/circuits/optimize', '/v1/analysis/coupling']) {
      const r = await app.inject({ method: 'POST', url, payload: { circuit: BELL, surprise: 1 } });
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error.details, url).toEqual([expect.objectContaining({ path: '/surprise', code: 'UNKNOWN_PROPERTY' })]);
    }
    const coerced = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: BELL, devices: 'p1-falcon-7' } });
    expect(coerced.statusCode).toBe(400);
    expect(coerced.json().error.details).toEqual([expect.objectContaining({ path: '/devices', code: 'WRONG_TYPE' })]);
  });
});
