/**
 * Issue #17 defect 9: a client that goes away stops its compute. Over a real listening socket:
 * the long task's request is destroyed, and the pool reports the task canceled (queued: dropped;
 * running: stopped, or its thread terminated and replaced), so with one thread a small request
 * sent afterwards gets the thread back instead of waiting out the long task's budget.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { busyCircuit } from '../helpers/circuits.js';
import { waitFor } from '../helpers/wait-for.js';

const apps: App[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function listening(env: Record<string, string>): Promise<{ app: App; port: number }> {
  const app = await buildTestApp({ COMPUTE_THREADS: '1', ...env });
  apps.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port };
}

/** A POST whose answer we may never read: the request object is returned to destroy it. */
function post(
  port: number,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): { req: ClientRequest; answer: Promise<{ status: number; headers: Record<string, unknown>; body: any }> } {
  const payload = JSON.stringify(body);
  let req!: ClientRequest;
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: any }>((resolve, reject) => {
    req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
  answer.catch(() => undefined); // a destroyed request rejects; nobody reads it
  return { req, answer };
}

/** Polls a state of the app (never a clock): resolves once `ok` holds. */
const until = (ok: () => boolean) => waitFor(ok, { what: 'the pool state' });

// Keeps the aggressive search busy far longer than this test may take (its budget is 60 s).
const LONG = { circuit: busyCircuit(10, 3_000, 11), profile: 'aggressive', include_steps: false };
const SMALL = {
  circuit: {
    schema: '0.2',
    num_qubits: 2,
    num_clbits: 0,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'h', qubits: [0] },
    ],
    measurements: [],
    metadata: {},
  },
};
const OPT = '/v1/circuits/optimize';

describe('compute stops when its client disconnects', () => {
  it('a running optimize is stopped when its socket is destroyed; the only thread serves the next request', async () => {
    const { app, port } = await listening({ ANON_COMPUTE_BUDGET_MS: '600000' });
    const long = post(port, OPT, LONG);
    await until(() => app.compute.stats().busy === 1);
    long.req.destroy();

    const small = await post(port, OPT, SMALL).answer;
    expect(small.status).toBe(200);
    expect(small.body.data.metrics_after.total).toBe(0);
    const s = app.compute.stats();
    expect(s.canceledRunning).toBe(1);
    expect(s.stoppedInGrace + s.terminatedAfterGrace).toBe(1);
  }, 30_000);

  it('a queued optimize is dropped without running when its socket is destroyed', async () => {
    const { app, port } = await listening({ ANON_COMPUTE_BUDGET_MS: '600000' });
    const long = post(port, OPT, LONG);
    await until(() => app.compute.stats().busy === 1);
    const queued = post(port, OPT, LONG);
    await until(() => app.compute.stats().queued === 1);
    queued.req.destroy();
    await until(() => app.compute.stats().queued === 0);
    expect(app.compute.stats()).toMatchObject({ canceledQueued: 1, canceledRunning: 0, busy: 1 });
    long.req.destroy();

    const small = await post(port, OPT, SMALL).answer;
    expect(small.status).toBe(200);
    expect(app.compute.stats()).toMatchObject({ canceledQueued: 1, canceledRunning: 1 });
  }, 30_000);

  it('a measured coupling analysis is canceled too', async () => {
    const { app, port } = await listening({ ANON_COMPUTE_BUDGET_MS: '600000', COUPLING_TIME_BUDGET_MS: '600000' });
    const long = post(port, OPT, LONG);
    await until(() => app.compute.stats().busy === 1);
    const coupling = post(port, '/v1/analysis/coupling', { circuit: busyCircuit(6, 50), mode: 'measured' });
    await until(() => app.compute.stats().queued === 1);
    coupling.req.destroy();
    await until(() => app.compute.stats().canceledQueued === 1);
    long.req.destroy();
    expect((await post(port, OPT, SMALL).answer).status).toBe(200);
  }, 30_000);
});
