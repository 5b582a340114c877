/**
 * Dynamic circuits on the Account Jobs interface (issue 22 item 5): `circuit.simulate` and
 * `provider-two.simulate` take wire circuits with gate `condition`s and run them with per-shot
 * branching. Active reset (measure, then x when the bit is 1) reads 0 on every shot the second time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit } from './helpers.js';

const activeReset = {
  schema: '0.2',
  num_qubits: 1,
  num_clbits: 2,
  gates: [
    { op: 'ry', qubits: [0], params: [1.9] },
    { op: 'measure', qubits: [0], clbits: [0] },
    { op: 'x', qubits: [0], condition: { clbits: [0], value: 1 } },
  ],
  measurements: [{ qubit: 0, clbit: 1 }],
};

describe('dynamic circuits as Account Jobs', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterEach(async () => expectAllInvariants(app));
  afterAll(async () => app.close());

  for (const capability of ['circuit.simulate', 'provider-two.simulate']) {
    it(`${capability}: active reset reads 0 on every shot, and both first outcomes occur`, async () => {
      const a = await newAgent(app, { fundMicros: 1_000_000n });
      const r = await submit(app, a, { capability_id: capability, request: { circuit: activeReset, shots: 1000, seed: 2 }, idempotency_key: key(capability), max_total_price: '0.1' });
      expect(r.statusCode).toBe(202);
      const id = r.json().job_id as string;
      expect(await app.services.jobsWorker.runOnce()).toEqual({ jobId: id, status: 'completed' });
      const done = (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: a.auth })).json();
      const counts = (done.result.counts ?? done.result.results?.counts) as Record<string, number>;
      expect(Object.keys(counts).sort()).toEqual(['00', '01']);
      expect(Object.values(counts).reduce((s, n) => s + n, 0)).toBe(1000);
    });
  }
});
