/**
 * CPU-heavy requests run on the compute pool (src/compute), so the event loop keeps answering
 * meanwhile; errors thrown in a compute thread answer exactly as they did in-process.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { busyCircuit } from '../helpers/circuits.js';

let pooled: App;
let inProcess: App;
beforeAll(async () => {
  pooled = await buildTestApp(); // COMPUTE_THREADS default: at least one thread
  inProcess = await buildTestApp({ COMPUTE_THREADS: '0' });
});
afterAll(async () => {
  await pooled.close();
  await inProcess.close();
});

describe('the compute pool keeps the event loop free', () => {
  it('GET /healthz answers while an aggressive optimize is in flight (over real HTTP)', async () => {
    expect(pooled.compute.threads).toBeGreaterThan(0);
    const app = await buildTestApp();
    // Resolves once the optimize request is past parsing and validation, about to run its handler.
    let handlerReached!: () => void;
    const reached = new Promise<void>((r) => (handlerReached = r));
    app.addHook('preHandler', (req, _reply, done) => {
      if (req.url === '/v1/circuits/optimize') handlerReached();
      done();
    });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const finished: string[] = [];
      const optimize = fetch(`${base}/v1/circuits/optimize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ circuit: busyCircuit(), profile: 'aggressive', include_steps: false }),
      }).then(async (r) => {
        finished.push('optimize');
        return { status: r.status, body: (await r.json()) as { data: { metrics_before: { total: number } } } };
      });
      await reached;
      // In-process (COMPUTE_THREADS=0) the handler would now hold the event loop until the
      // optimization ends, so this request could only complete after it.
      const health = await fetch(`${base}/healthz`).then(async (r) => {
        finished.push('healthz');
        return { status: r.status, body: await r.json() };
      });
      expect(health).toEqual({ status: 200, body: { status: 'ok' } });
      const opt = await optimize;
      expect(opt.status).toBe(200);
      expect(opt.body.data.metrics_before.total).toBe(600);
      expect(finished).toEqual(['healthz', 'optimize']);
    } finally {
      await app.close();
    }
  });
});

describe('errors from a compute thread answer as in-process', () => {
  const post = (app: App, url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });
  const envelope = (body: string) => {
    const { meta: _meta, ...rest } = JSON.parse(body) as { meta: unknown };
    return rest;
  };
  const BELL = {
    schema: '0.2',
    num_qubits: 2,
    num_clbits: 0,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'cx', qubits: [0, 1] },
    ],
    measurements: [],
  };

  it('optimize with a device of another provider: 400 OPTIMIZATION_DEVICE_UNKNOWN, same envelope', async () => {
    const body = { circuit: BELL, backend_hint: 'provider-one', device: 'p2-ion-11' };
    const [a, b] = [await post(pooled, '/v1/circuits/optimize', body), await post(inProcess, '/v1/circuits/optimize', body)];
    expect(a.statusCode).toBe(400);
    expect(a.json().error.code).toBe('OPTIMIZATION_DEVICE_UNKNOWN');
    expect(a.json().error.details).toMatchObject({ path: '/device' });
    expect(b.statusCode).toBe(400);
    expect(envelope(a.body)).toEqual(envelope(b.body));
  });

  it('measured coupling with an invalid pair: 400 COUPLING_PAIR_INVALID with its paths, same envelope', async () => {
    for (const [url, body] of [
      [
        '/v1/analysis/coupling',
        {
          circuit: BELL,
          mode: 'measured',
          pairs: [
            [0, 5],
            [1, 1],
          ],
        },
      ],
      ['/v1/analysis/coupling/compare', { before: BELL, after: BELL, mode: 'auto', qubit_map: [0, 0] }],
    ] as const) {
      const [a, b] = [await post(pooled, url, body), await post(inProcess, url, body)];
      expect(a.statusCode).toBe(400);
      expect(a.json().error.code).toMatch(/^COUPLING_(PAIR|QUBIT_MAP)_INVALID$/);
      expect(envelope(a.body)).toEqual(envelope(b.body));
    }
  });

  it('a successful measured coupling and optimize give the same data both ways', async () => {
    const c = await Promise.all([pooled, inProcess].map((app) => post(app, '/v1/analysis/coupling', { circuit: BELL, mode: 'measured' })));
    expect(c[0]!.json().data).toEqual(c[1]!.json().data);
    const o = await Promise.all([pooled, inProcess].map((app) => post(app, '/v1/circuits/optimize', { circuit: BELL, profile: 'balanced', output_format: 'qasm3' })));
    const strip = (d: { elapsed_ms: number; proof: { methods: { elapsed_ms?: number }[] } }) => ({
      ...d,
      elapsed_ms: 0,
      proof: { ...d.proof, methods: d.proof.methods.map((m) => ({ ...m, elapsed_ms: 0 })) },
    });
    expect(strip(o[0]!.json().data)).toEqual(strip(o[1]!.json().data));
  });
});
