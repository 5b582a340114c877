import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { readFileSync } from 'node:fs';
import { parseGuide } from '../helpers/api-guide.js';
import { openapiDocument, openObjects, operations, ResponseChecker, type OpenApiDocument } from '../helpers/openapi.js';

type Json = Record<string, any>;

/** The only free-form objects: the circuit's `metadata`, the user's own data echoed back as given. */
const FREE_FORM = /\/components\/schemas\/CircuitV0[12]\/metadata$/;

describe('the OpenAPI document is complete', () => {
  let app: App;
  let doc: OpenApiDocument;
  let ops: { method: string; path: string; op: Json }[];

  beforeAll(async () => {
    app = await buildTestApp();
    doc = await openapiDocument(app);
    ops = operations(doc);
  });
  afterAll(async () => app.close());

  it('names every operation: unique camelCase operationIds, the specification’s on the Account Jobs interface', () => {
    const ids = ops.map((o) => o.op['operationId']);
    expect(ops.length).toBeGreaterThanOrEqual(64);
    expect(ops.filter((o) => typeof o.op['operationId'] !== 'string').map((o) => `${o.method} ${o.path}`)).toEqual([]);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const byId = Object.fromEntries(ops.map((o) => [o.op['operationId'], `${o.method.toUpperCase()} ${o.path}`]));
    expect(byId).toMatchObject({
      listAccountJobs: 'GET /v1/jobs',
      runAccountJob: 'POST /v1/jobs',
      getAccountJob: 'GET /v1/jobs/{job_id}',
      getAccountBalance: 'GET /v1/account/balance',
    });
  });

  it('types every response: closed objects only (but the circuit’s free-form metadata), real descriptions', () => {
    expect(openObjects(doc).filter((at) => !FREE_FORM.test(at))).toEqual([]);
    const bare: string[] = [];
    for (const { method, path, op } of ops) {
      for (const [status, r] of Object.entries(op['responses'] as Record<string, Json>)) {
        if (typeof r['description'] !== 'string' || r['description'] === '' || r['description'] === 'Default Response') bare.push(`${method} ${path} ${status}`);
        if (status !== '303' && r['content'] === undefined) bare.push(`${method} ${path} ${status}: no content`);
      }
    }
    expect(bare).toEqual([]);
  });

  it('declares security on every operation: none on public ones, the session, the Jobs token or OAuth 2 client credentials', () => {
    const schemes = doc.components.securitySchemes as Json;
    expect(Object.keys(schemes).sort()).toEqual(['clientBasic', 'jobsOAuth', 'jobsToken', 'operatorToken', 'processorSignature', 'session']);
    expect(schemes['jobsOAuth'].flows.clientCredentials.tokenUrl).toBe('http://qrail.test/v1/oauth/token');
    expect(ops.filter((o) => !Array.isArray(o.op['security'])).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    const sec = (m: string, p: string) => ops.find((o) => o.method === m && o.path === p)?.op['security'];
    expect(sec('post', '/v1/circuits/validate')).toEqual([]);
    expect(sec('get', '/v1/catalog')).toEqual([]);
    // Platform operations: the session, or a machine token with the declared scope (src/http/route-access.ts).
    expect(sec('get', '/v1/billing/wallet')).toEqual([{ session: [] }, { jobsToken: ['billing:read'] }, { jobsOAuth: ['billing:read'] }]);
    expect(sec('patch', '/v1/billing/spend-controls')).toEqual([{ session: [] }]);
    expect(sec('post', '/v1/circuits/analyze')).toEqual([{ session: [] }, { jobsToken: ['circuits:run'] }, { jobsOAuth: ['circuits:run'] }, {}]);
    expect(sec('post', '/v1/jobs')).toEqual([{ jobsToken: [] }, { jobsOAuth: ['jobs:write'] }]);
    expect(sec('get', '/v1/jobs/{job_id}')).toEqual([{ jobsToken: [] }, { jobsOAuth: ['jobs:read'] }]);
    expect(sec('post', '/v1/oauth/token')).toEqual([{ clientBasic: [] }, {}]);
    const token = ops.find((o) => o.path === '/v1/oauth/token')!.op;
    expect(Object.keys(token['requestBody'].content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const grants = (token['requestBody'].content['application/x-www-form-urlencoded'].schema.anyOf as Json[]).map((s) => (s['properties'] as Record<string, Json>)['grant_type']?.['const']);
    expect(grants).toEqual(['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange']);
  });

  it('has servers and a description for every tag it uses', () => {
    expect(doc['servers']).toEqual([{ url: 'http://qrail.test', description: expect.any(String) }]);
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t]));
    for (const { op } of ops) for (const t of op['tags'] as string[]) expect(declared.has(t), t).toBe(true);
    for (const t of declared.values()) expect((t as Json)['description'], t.name).toEqual(expect.any(String));
  });

  it('admits any circuit-shaped value at POST /v1/circuits/validate (it exists to receive broken circuits): every validate example of the API guide conforms, the invalid one too', () => {
    const checker = new ResponseChecker(doc);
    const guide = parseGuide(readFileSync(new URL('../../docs/api-guide.md', import.meta.url), 'utf8')).filter((e) => e.method === 'POST' && e.path === '/v1/circuits/validate');
    expect(guide.length).toBeGreaterThanOrEqual(4);
    const invalid = guide.find((e) => e.expectBody.includes('"valid": false'));
    expect(invalid).toBeDefined();
    expect(guide.flatMap((e) => checker.checkRequest('POST', e.path, e.body))).toEqual([]);
    // Still bounded and still documented: any object of few members (the three forms shown for a typed client), never a number or a string.
    const body = ops.find((o) => o.method === 'post' && o.path === '/v1/circuits/validate')!.op['requestBody'].content['application/json'].schema;
    const forms = ['CircuitV02', 'CircuitV01', 'QasmInput'].map((id) => ({ $ref: `#/components/schemas/${id}` }));
    expect(body.properties.circuit.anyOf).toEqual([...forms, expect.objectContaining({ type: 'object', maxProperties: expect.any(Number) })]);
    const v = checker.validator(body);
    expect(v({ circuit: { gates: [{ op: 'nope', qubits: ['a'] }], extra: 1 } })).toBe(true);
    expect(v({ circuit: { format: 'qasm2', source: 'OPENQASM 2.0;\nqreg q[1];\nfoo q[0];' } })).toBe(true);
    expect(v({ circuit: 'OPENQASM 2.0;' })).toBe(false);
    expect(v({ circuit: 42 })).toBe(false);
  });

  it('declares Location on every 202 answer (the object to poll)', () => {
    const accepted = ops.filter((o) => o.op['responses']['202'] !== undefined);
    expect(accepted.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'post /v1/jobs',
        'post /v1/circuits/optimize',
        'post /v1/execute/provider-one',
        'post /v1/execute/provider-two/held/{job_id}',
        'post /v1/execute/provider-two/held/{job_id}/batch',
      ]),
    );
    const withoutLocation = accepted.filter((o) => !Object.keys(o.op['responses']['202'].headers ?? {}).includes('Location')).map((o) => `${o.method} ${o.path}`);
    // The only 202 without an object to poll: a reset request is accepted whether or not the email has an account.
    expect(withoutLocation).toEqual(['post /v1/auth/password/forgot']);
    expect((doc.components.headers as Json)['Location'].required).toBe(true);
  });

  it('shows request circuits as one of wire format 0.2, 0.1 or OpenQASM, everywhere', () => {
    const forms = ['CircuitV02', 'CircuitV01', 'QasmInput'].map((id) => ({ $ref: `#/components/schemas/${id}` }));
    const body = (p: string) => ops.find((o) => o.method === 'post' && o.path === p)!.op['requestBody'].content['application/json'].schema;
    for (const [p, fields] of [
      ['/v1/circuits/optimize', ['circuit']],
      ['/v1/analysis/coupling/compare', ['before', 'after']],
      ['/v1/execute/provider-one', ['circuit']],
    ] as const) {
      for (const f of fields) expect(body(p).properties[f].oneOf, `${p} ${f}`).toEqual(forms);
    }
    expect(JSON.stringify(doc)).not.toContain('x-qrail');
  });

  it('declares every status the edge can answer, with its headers', () => {
    const op = (m: string, p: string) => ops.find((o) => o.method === m && o.path === p)!.op;
    const statuses = (m: string, p: string) => Object.keys(op(m, p)['responses']);
    expect(statuses('post', '/v1/auth/register')).toEqual(expect.arrayContaining(['201', '400', '409', '413', '415', '429', '500', '503']));
    expect(statuses('post', '/v1/auth/register')).not.toContain('401');
    expect(statuses('post', '/v1/billing/processor/sandbox/checkout/{id}/pay')).toContain('303');
    expect(op('post', '/v1/billing/processor/sandbox/checkout/{id}/pay')['responses']['303'].headers).toHaveProperty('Location');
    expect(statuses('get', '/v1/billing/wallet')).toEqual(expect.arrayContaining(['200', '401', '429', '503']));
    const submit = op('post', '/v1/jobs')['responses'];
    expect(Object.keys(submit['202'].headers)).toEqual(expect.arrayContaining(['Location', 'Idempotent-Replayed', 'RateLimit-Limit', 'X-Request-Id']));
    expect(submit['401'].headers).toHaveProperty('WWW-Authenticate');
    expect(submit['429'].headers).toHaveProperty('Retry-After');
    expect(submit['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/JobsError401' });
    expect(op('post', '/v1/billing/hardware/hold')['responses']['201'].headers).toHaveProperty('Idempotent-Replayed');
    expect(statuses('get', '/healthz')).not.toContain('429');
    // Idempotency-Key: reused with another request, or still in flight.
    expect(statuses('post', '/v1/billing/processor/payment-intent')).toContain('409');
    expect(op('post', '/v1/billing/processor/payment-intent')['responses']['409'].headers).toHaveProperty('Retry-After');
  });

  it('gives each interface its error shape with the catalogue’s codes as an enum', () => {
    const s = doc.components.schemas;
    const codes = (id: string) => (s[id] as Json)['properties'].error.properties.code.enum as string[];
    expect(codes('PlatformError409')).toEqual(expect.arrayContaining(['EMAIL_TAKEN', 'IDEMPOTENCY_KEY_REUSED', 'INSUFFICIENT_BALANCE', 'EXECUTION_HOLD_REQUIRED']));
    expect(codes('PlatformError409')).not.toContain('PRICE_ABOVE_MAXIMUM');
    expect(codes('JobsError409')).toEqual(expect.arrayContaining(['PRICE_ABOVE_MAXIMUM', 'IDEMPOTENCY_KEY_REUSED', 'INSUFFICIENT_BALANCE', 'SPEND_LIMIT_DAILY']));
    expect(codes('JobsError409')).not.toContain('EMAIL_TAKEN');
    expect(codes('JobsError404')).toEqual(['NOT_FOUND', 'JOB_NOT_FOUND']);
    expect(Object.keys((s['PlatformError400'] as Json)['properties']).sort()).toEqual(['error', 'meta', 'status']);
    expect(Object.keys((s['JobsError400'] as Json)['properties']).sort()).toEqual(['error', 'request_id']);
  });

  it('has examples from the API guide, each valid against its schema', () => {
    const checker = new ResponseChecker(doc);
    let n = 0;
    const invalid: string[] = [];
    for (const { method, path, op } of ops) {
      const media = [
        ...Object.entries((op['requestBody']?.content ?? {}) as Record<string, Json>).map(([t, m]) => ({ at: `request ${t}`, m })),
        ...Object.entries(op['responses'] as Record<string, Json>).flatMap(([status, r]) =>
          Object.entries((r['content'] ?? {}) as Record<string, Json>).map(([t, m]) => ({ at: `${status} ${t}`, m })),
        ),
      ];
      for (const { at, m } of media) {
        for (const [name, ex] of Object.entries((m['examples'] ?? {}) as Record<string, Json>)) {
          n++;
          const v = checker.validator(m['schema']);
          if (!v(ex['value'])) invalid.push(`${method} ${path} ${at} ${name}: ${JSON.stringify(v.errors?.slice(0, 3))}`);
        }
      }
    }
    expect(invalid).toEqual([]);
    expect(n).toBeGreaterThanOrEqual(30);
  });
});
