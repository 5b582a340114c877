import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';

let app: App;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

type Gate = { op: string; qubits: number[]; params?: number[] };
const circuit = (n: number, gates: Gate[], measurements: { qubit: number; clbit: number }[] = []) => ({ schema: '0.2', num_qubits: n, num_clbits: n, gates, measurements });

async function entanglement(c: unknown) {
  const r = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: c } });
  expect(r.statusCode).toBe(200);
  return r.json().data.entanglement;
}

describe('POST /v1/circuits/analyze: pairs the final state really entangles', () => {
  it('Bell: the one pair is entangled and correlated', async () => {
    const e = await entanglement(
      circuit(
        2,
        [
          { op: 'h', qubits: [0] },
          { op: 'cx', qubits: [0, 1] },
        ],
        [
          { qubit: 0, clbit: 0 },
          { qubit: 1, clbit: 1 },
        ],
      ),
    );
    expect(e.possibly_entangled_pairs).toEqual([[0, 1]]);
    expect(e.entangled_pairs).toEqual([[0, 1]]);
    expect(e.correlated_pairs).toEqual([[0, 1]]);
    expect(e.entangled_pairs_method).toMatch(/concurrence/);
    expect(e.entangled_pairs_unavailable_reason).toBeNull();
  });

  it('GHZ3: no pair has concurrence, every pair is correlated', async () => {
    const e = await entanglement(
      circuit(3, [
        { op: 'h', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'cx', qubits: [1, 2] },
      ]),
    );
    expect(e.entangled_pairs).toEqual([]);
    expect(e.correlated_pairs).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
  });

  it('W3 (every pair C = 2/3) and a light cone that over-approximates', async () => {
    // W3 from |000>: ry on q0 to amplitude 1/sqrt3, controlled-H-like split via cry, then cx ladder.
    const theta = 2 * Math.acos(Math.sqrt(1 / 3));
    const w = await entanglement(
      circuit(3, [
        { op: 'ry', qubits: [0], params: [theta] },
        { op: 'cry', qubits: [0, 1], params: [Math.PI / 2] },
        { op: 'cx', qubits: [1, 2] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'x', qubits: [0] },
      ]),
    );
    expect(w.entangled_pairs).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    // cx with its control in |0>: the light cones meet, the state stays a product.
    const p = await entanglement(
      circuit(2, [
        { op: 'h', qubits: [1] },
        { op: 'cx', qubits: [0, 1] },
      ]),
    );
    expect(p.possibly_entangled_pairs).toEqual([[0, 1]]);
    expect(p.entangled_pairs).toEqual([]);
    expect(p.correlated_pairs).toEqual([]);
  });

  it('a swap moves a partner, it does not entangle: only the pair holding the Bell state may be entangled', async () => {
    const e = await entanglement(
      circuit(3, [
        { op: 'h', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'swap', qubits: [1, 2] },
      ]),
    );
    expect(e.possibly_entangled_pairs).toEqual([[0, 2]]);
    expect(e.entangled_pairs).toEqual([[0, 2]]);
    // Swapping the two halves of the pair keeps the pair.
    const self = await entanglement(
      circuit(2, [
        { op: 'h', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
        { op: 'swap', qubits: [0, 1] },
      ]),
    );
    expect(self.possibly_entangled_pairs).toEqual([[0, 1]]);
    // The same pairs as coupling's qualitative mode gives.
    const q = await app.inject({
      method: 'POST',
      url: '/v1/analysis/coupling',
      payload: {
        circuit: circuit(3, [
          { op: 'h', qubits: [0] },
          { op: 'cx', qubits: [0, 1] },
          { op: 'swap', qubits: [1, 2] },
        ]),
        mode: 'qualitative',
      },
    });
    const may = q
      .json()
      .data.qualitative.pairs.filter((p: { may_be_entangled: boolean }) => p.may_be_entangled)
      .map((p: { qubits: number[] }) => p.qubits);
    expect(may).toEqual([[0, 2]]);
  });

  it('says why when the circuit is out of scope (mid-circuit measurement, too many qubits), answering without a compute thread', async () => {
    const pool = vi.spyOn(app.compute, 'run');
    const mid = await entanglement(circuit(2, [{ op: 'h', qubits: [0] }, { op: 'measure', qubits: [0], clbits: [0] } as Gate, { op: 'cx', qubits: [0, 1] }]));
    expect(mid.entangled_pairs).toBeNull();
    expect(mid.correlated_pairs).toBeNull();
    expect(mid.entangled_pairs_unavailable_reason).toMatch(/measured/);
    const chain: Gate[] = [{ op: 'h', qubits: [0] }];
    for (let q = 0; q < 12; q++) chain.push({ op: 'cx', qubits: [q, q + 1] });
    const wide = await entanglement(circuit(13, chain));
    expect(wide.entangled_pairs).toBeNull();
    expect(wide.entangled_pairs_unavailable_reason).toMatch(/13/);
    expect(wide.possibly_entangled_pairs).toHaveLength(78);
    // Only a probe that simulates goes to the pool (and takes an anonymous compute slot).
    expect(pool).not.toHaveBeenCalled();
    await entanglement(
      circuit(2, [
        { op: 'h', qubits: [0] },
        { op: 'cx', qubits: [0, 1] },
      ]),
    );
    expect(pool.mock.calls.map((c) => c[0])).toEqual(['circuit.entangled-pairs']);
    pool.mockRestore();
  });
});
