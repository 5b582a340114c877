import { expect } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';

/**
 * Every HTTP entry point that takes a circuit, with where its problems are reported:
 * validate answers 200 `valid: false`; the other platform routes 400 CIRCUIT_INVALID in the
 * envelope; `POST /v1/jobs` 400 CIRCUIT_INVALID in the Jobs shape under `/request`.
 */
export interface EntryPoint {
  readonly name: string;
  readonly url: string;
  readonly auth: 'none' | 'session' | 'agent';
  readonly kind: 'validate' | 'platform' | 'jobs';
  /** JSON Pointer of the circuit in the request body. */
  readonly circuitPath: string;
  /** The request body around `circuit` (a JSON text: hostile payloads are spliced in as text). */
  readonly body: (circuit: string) => string;
}

let n = 0;
const token = () => `ib-${process.pid}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const jobsBody = (capability: string, extra: string) => (c: string) =>
  `{"capability_id":"${capability}","idempotency_key":"${token()}","max_total_price":"1.000000","request":{"circuit":${c}${extra}}}`;

export const ENTRY_POINTS: readonly EntryPoint[] = [
  { name: 'validate', url: '/v1/circuits/validate', auth: 'none', kind: 'validate', circuitPath: '/circuit', body: (c) => `{"circuit":${c}}` },
  { name: 'analyze', url: '/v1/circuits/analyze', auth: 'none', kind: 'platform', circuitPath: '/circuit', body: (c) => `{"circuit":${c}}` },
  { name: 'optimize', url: '/v1/circuits/optimize', auth: 'none', kind: 'platform', circuitPath: '/circuit', body: (c) => `{"circuit":${c}}` },
  { name: 'coupling', url: '/v1/analysis/coupling', auth: 'none', kind: 'platform', circuitPath: '/circuit', body: (c) => `{"circuit":${c}}` },
  { name: 'compare (before)', url: '/v1/analysis/coupling/compare', auth: 'none', kind: 'platform', circuitPath: '/before', body: (c) => `{"before":${c},"after":${BELL}}` },
  { name: 'compare (after)', url: '/v1/analysis/coupling/compare', auth: 'none', kind: 'platform', circuitPath: '/after', body: (c) => `{"before":${BELL},"after":${c}}` },
  {
    name: 'execute provider-one',
    url: '/v1/execute/provider-one',
    auth: 'session',
    kind: 'platform',
    circuitPath: '/circuit',
    body: (c) => `{"circuit":${c},"shots":10,"seed":1,"client_token":"${token()}"}`,
  },
  {
    name: 'execute provider-two',
    url: '/v1/execute/provider-two',
    auth: 'session',
    kind: 'platform',
    circuitPath: '/circuit',
    body: (c) => `{"circuit":${c},"shots":10,"seed":1,"client_token":"${token()}"}`,
  },
  { name: 'job circuit.analyze', url: '/v1/jobs', auth: 'agent', kind: 'jobs', circuitPath: '/request/circuit', body: jobsBody('circuit.analyze', '') },
  { name: 'job circuit.optimize', url: '/v1/jobs', auth: 'agent', kind: 'jobs', circuitPath: '/request/circuit', body: jobsBody('circuit.optimize', '') },
  { name: 'job circuit.simulate', url: '/v1/jobs', auth: 'agent', kind: 'jobs', circuitPath: '/request/circuit', body: jobsBody('circuit.simulate', ',"shots":10') },
  { name: 'job coupling.analyze', url: '/v1/jobs', auth: 'agent', kind: 'jobs', circuitPath: '/request/circuit', body: jobsBody('coupling.analyze', '') },
  { name: 'job provider-one.simulate', url: '/v1/jobs', auth: 'agent', kind: 'jobs', circuitPath: '/request/circuit', body: jobsBody('provider-one.simulate', ',"shots":10') },
];

export const BELL = JSON.stringify({
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
});

export interface Callers {
  readonly session: { authorization: string };
  readonly agent: { authorization: string };
}

/** A signed-in user with a funded account and a jobs credential. */
export async function callers(app: App): Promise<Callers> {
  const u = await signUp(app);
  const r = await app.inject({ method: 'POST', url: '/v1/auth/credentials', headers: u.auth, payload: { name: 'bounds', scopes: ['jobs:read', 'jobs:write'] } });
  if (r.statusCode !== 201) throw new Error(`credential: ${r.statusCode} ${r.body}`);
  await fundAccount(app, u.accountId, 10_000_000n);
  return { session: u.auth, agent: { authorization: `Bearer ${r.json().data.secret as string}` } };
}

export async function send(app: App, who: Callers, ep: EntryPoint, circuit: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (ep.auth !== 'none') Object.assign(headers, who[ep.auth]);
  return app.inject({ method: 'POST', url: ep.url, headers, payload: ep.body(circuit) });
}

export interface Problem {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** The circuit problems of an answer, after checking it is the entry point's "invalid circuit" answer. */
export function problemsOf(ep: EntryPoint, res: { statusCode: number; body: string }): Problem[] {
  const label = `${ep.name}: ${res.statusCode} ${res.body.slice(0, 300)}`;
  const body = JSON.parse(res.body) as Record<string, any>;
  if (ep.kind === 'validate') {
    expect(res.statusCode, label).toBe(200);
    expect(body['data']['valid'], label).toBe(false);
    return body['data']['errors'] as Problem[];
  }
  expect(res.statusCode, label).toBe(400);
  const error = body['error'] as Record<string, any>;
  if (ep.kind === 'platform') expect(body['status'], label).toBe('error');
  else expect(body['request_id'], label).toEqual(expect.any(String));
  expect(error['code'], label).toBe('CIRCUIT_INVALID');
  return error['details'] as Problem[];
}

/** Asserts the answer reports exactly this problem code at this path (relative to the circuit). */
export function expectProblem(ep: EntryPoint, res: { statusCode: number; body: string }, code: string, path: string): void {
  const problems = problemsOf(ep, res);
  expect(problems, `${ep.name}: ${res.body.slice(0, 300)}`).toContainEqual(expect.objectContaining({ code, path: ep.circuitPath + path }));
}

/** Asserts the edge refused the request: 400 INVALID_CHARACTERS naming this path of the circuit, in the entry point's shape. */
export function expectEdgeRefusal(ep: EntryPoint, res: { statusCode: number; body: string }, path: string): void {
  const label = `${ep.name}: ${res.statusCode} ${res.body.slice(0, 300)}`;
  const body = JSON.parse(res.body) as Record<string, any>;
  expect(res.statusCode, label).toBe(400);
  if (ep.kind === 'jobs') expect(body['request_id'], label).toEqual(expect.any(String));
  else expect(body['status'], label).toBe('error');
  expect(body['error']['code'], label).toBe('INVALID_CHARACTERS');
  expect(body['error']['details'], label).toContainEqual(expect.objectContaining({ in: 'body', path: ep.circuitPath + path }));
}
