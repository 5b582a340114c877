import { expect } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { expectLedgerInvariants } from '../helpers/ledger.js';

export const bell = {
  schema: '0.2', num_qubits: 2, num_clbits: 2,
  gates: [{ op: 'h', qubits: [0] }, { op: 'cx', qubits: [0, 1] }],
  measurements: [{ qubit: 0, clbit: 0 }, { qubit: 1, clbit: 1 }],
};

export const ghz3 = {
  schema: '0.2', num_qubits: 3, num_clbits: 3,
  gates: [{ op: 'h', qubits: [0] }, { op: 'cx', qubits: [0, 1] }, { op: 'cx', qubits: [1, 2] }],
  measurements: [{ qubit: 0, clbit: 0 }, { qubit: 1, clbit: 1 }, { qubit: 2, clbit: 2 }],
};

export interface WalletFigures { available: string; held: string; total: string }

export async function wallet(app: App, auth: { authorization: string }): Promise<WalletFigures> {
  const r = await app.inject({ method: 'GET', url: '/v1/billing/wallet', headers: auth });
  expect(r.statusCode).toBe(200);
  const d = r.json().data;
  return { available: d.available, held: d.held, total: d.total };
}

export async function expectWallet(app: App, auth: { authorization: string }, available: string, held: string): Promise<void> {
  const w = await wallet(app, auth);
  expect({ available: w.available, held: w.held }).toEqual({ available, held });
  await expectLedgerInvariants(app);
}

export async function quoteAndHold(app: App, auth: { authorization: string }, device: string, shots: number, extra: Record<string, unknown> = {}) {
  const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: auth, payload: { provider: 'provider-two', device, shots } });
  expect(q.statusCode).toBe(200);
  const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: auth, payload: { quote_id: q.json().data.quote_id, ...extra } });
  expect(h.statusCode).toBe(201);
  return { quote: q.json().data, held: h.json().data as { job_id: string; amount: string; hold_id: string; status: string } };
}
