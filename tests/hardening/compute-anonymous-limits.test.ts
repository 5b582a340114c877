/**
 * Issue #17 defect 9, second half: compute without a session is limited per client address
 * (ANON_COMPUTE_CONCURRENCY in flight, 429 CONCURRENCY_LIMITED beyond) and to a shorter time
 * budget (ANON_COMPUTE_BUDGET_MS, the answer says so); a bearer session lifts both.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { anonymousInFlight } from '../../src/http/anonymous-compute.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { busyCircuit } from '../helpers/circuits.js';
import { waitFor } from '../helpers/wait-for.js';

const apps: App[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

function post(port: number, path: string, body: unknown): { req: ClientRequest; answer: Promise<{ status: number; body: any }> } {
  const payload = JSON.stringify(body);
  let req!: ClientRequest;
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
  answer.catch(() => undefined);
  return { req, answer };
}

const until = (ok: () => boolean) => waitFor(ok, { what: 'the pool state' });

const LONG = { circuit: busyCircuit(10, 3_000, 11), profile: 'aggressive', include_steps: false };
const SMALL = { circuit: busyCircuit(4, 40, 3), profile: 'safe', include_steps: false };
const OPT = '/v1/circuits/optimize';

describe('anonymous compute limits', () => {
  it('a third concurrent anonymous compute request from one address answers 429 CONCURRENCY_LIMITED; a signed-in one is not limited', async () => {
    const app = await buildTestApp({ COMPUTE_THREADS: '1', ANON_COMPUTE_BUDGET_MS: '600000' });
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const user = await signUp(app);

    const a = post(port, OPT, LONG);
    const b = post(port, OPT, LONG);
    await until(() => anonymousInFlight(app, '127.0.0.1') === 2);

    const third = await app.inject({ method: 'POST', url: OPT, payload: SMALL, remoteAddress: '127.0.0.1' });
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toBe('1');
    expect(third.json().error).toMatchObject({ code: 'CONCURRENCY_LIMITED', details: { limit: 2, in_flight: 2 } });
    expect(third.json().error.message).toMatch(/At most 2 compute requests .* per address without a session/);

    // Coupling shares the slots.
    const coupling = await app.inject({ method: 'POST', url: '/v1/analysis/coupling', payload: { circuit: busyCircuit(4, 20), mode: 'measured' }, remoteAddress: '127.0.0.1' });
    expect(coupling.statusCode).toBe(429);
    // So does analyze's entanglement probe (a simulation too).
    const analyze = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: busyCircuit(4, 20) }, remoteAddress: '127.0.0.1' });
    expect(analyze.statusCode).toBe(429);
    expect(analyze.json().error.code).toBe('CONCURRENCY_LIMITED');
    const analyzeSignedIn = app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: busyCircuit(4, 20) }, remoteAddress: '127.0.0.1', headers: user.auth });

    // Another address has its own slots: it waits for the thread instead of being refused.
    const other = app.inject({ method: 'POST', url: OPT, payload: SMALL, remoteAddress: '10.0.0.9' });
    const signedIn = app.inject({ method: 'POST', url: OPT, payload: SMALL, remoteAddress: '127.0.0.1', headers: user.auth });
    await until(() => app.compute.stats().queued === 4);
    a.req.destroy();
    b.req.destroy();
    expect((await other).statusCode).toBe(200);
    expect((await signedIn).statusCode).toBe(200);
    expect((await analyzeSignedIn).statusCode).toBe(200);
    expect(anonymousInFlight(app, '127.0.0.1')).toBe(0);
  }, 30_000);

  it('ANON_COMPUTE_CONCURRENCY sets the limit', async () => {
    const app = await buildTestApp({ COMPUTE_THREADS: '1', ANON_COMPUTE_CONCURRENCY: '1', ANON_COMPUTE_BUDGET_MS: '600000' });
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const a = post(port, OPT, LONG);
    await until(() => anonymousInFlight(app, '127.0.0.1') === 1);
    const second = await app.inject({ method: 'POST', url: OPT, payload: SMALL, remoteAddress: '127.0.0.1' });
    expect(second.statusCode).toBe(429);
    expect(second.json().error.details).toEqual({ limit: 1, in_flight: 1 });
    a.req.destroy();
    await until(() => anonymousInFlight(app, '127.0.0.1') === 0);
  }, 30_000);

  it('anonymous optimize runs with at most ANON_COMPUTE_BUDGET_MS and says so; a signed-in caller gets the profile budget', async () => {
    const app = await buildTestApp({ ANON_COMPUTE_BUDGET_MS: '200' });
    apps.push(app);
    const user = await signUp(app);
    const anon = await app.inject({ method: 'POST', url: OPT, payload: SMALL });
    expect(anon.statusCode).toBe(200);
    const note = anon.json().data.notes.find((n: string) => n.includes('without a session'));
    expect(note).toContain('at most 200 ms (ANON_COMPUTE_BUDGET_MS; the safe profile has 5000 ms)');
    expect(note).toContain('POST /v1/jobs');

    const signed = await app.inject({ method: 'POST', url: OPT, payload: SMALL, headers: user.auth });
    expect(signed.statusCode).toBe(200);
    expect(signed.json().data.notes.some((n: string) => n.includes('without a session'))).toBe(false);
    expect(signed.json().data.circuit).toEqual(anon.json().data.circuit);
  });

  it('the cap is the search budget the optimizer used (its time-out note names it)', async () => {
    const app = await buildTestApp({ ANON_COMPUTE_BUDGET_MS: '500' });
    apps.push(app);
    const r = await app.inject({ method: 'POST', url: OPT, payload: LONG });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.timed_out).toBe(true);
    // Profiles run cheapest first inside the one budget (docs/optimizer.md): the search whose result
    // is returned names its share of the anonymous cap, never more than the cap.
    const notes = r.json().data.notes as string[];
    const stopped = notes.map((n) => /^the (safe|balanced|aggressive) search stopped at its time budget \((\d+) ms\); the best result found so far is returned$/.exec(n)).find((m) => m !== null);
    expect(stopped, notes.join(' | ')).toBeDefined();
    expect(Number(stopped?.[2])).toBeGreaterThan(0);
    expect(Number(stopped?.[2])).toBeLessThanOrEqual(500);
  }, 30_000);

  it('a bad ANON_COMPUTE_* value stops the start', async () => {
    await expect(buildTestApp({ ANON_COMPUTE_CONCURRENCY: '0' })).rejects.toThrow(/ANON_COMPUTE_CONCURRENCY must be between 1 and 1000/);
  });
});
