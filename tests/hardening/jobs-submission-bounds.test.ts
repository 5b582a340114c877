import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { expectAllInvariants, key, newAgent, submit, type Agent } from '../jobs/helpers.js';

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

describe('a coupling.analyze job with pairs outside its circuit', () => {
  let app: App;
  let agent: Agent;
  beforeAll(async () => {
    app = await buildTestApp();
    agent = await newAgent(app);
  });
  afterAll(async () => {
    await app.close();
  });

  it('is refused at submission with the pair’s path, and nothing is reserved', async () => {
    const before = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: agent.auth })).json();
    const r = await submit(app, agent, {
      capability_id: 'coupling.analyze',
      request: {
        circuit: BELL,
        pairs: [
          [0, 1],
          [0, 99_999_999_999],
        ],
      },
      idempotency_key: key(),
      max_total_price: '1.000000',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('COUPLING_PAIR_INVALID');
    expect(r.json().error.details).toEqual([expect.objectContaining({ path: '/request/pairs/1/1', code: 'QUBIT_OUT_OF_RANGE' })]);
    const after = (await app.inject({ method: 'GET', url: '/v1/account/balance', headers: agent.auth })).json();
    expect({ ...after, as_of: undefined }).toEqual({ ...before, as_of: undefined });
    await expectAllInvariants(app);
  });

  it('with pairs inside the circuit is accepted', async () => {
    const r = await submit(app, agent, { capability_id: 'coupling.analyze', request: { circuit: BELL, pairs: [[1, 0]] }, idempotency_key: key(), max_total_price: '1.000000' });
    expect(r.statusCode).toBe(202);
  });
});
