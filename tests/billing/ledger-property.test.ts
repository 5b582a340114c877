import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/http/app-types.js';
import { captureHold, checkLedgerInvariants, expireDueHolds, getHold, getWallet, grantCredit, placeHold, refundCapture, releaseHold } from '../helpers/ledger.js';
import { buildTestApp } from '../helpers/app.js';

type Op =
  | { op: 'credit'; amount: number }
  | { op: 'hold'; amount: number }
  | { op: 'capture'; i: number; permille: number }
  | { op: 'release'; i: number }
  | { op: 'expire'; i: number }
  | { op: 'refund'; i: number; permille: number; ofRest: boolean };

interface ModelHold {
  id: string;
  amount: bigint;
  status: 'pending' | 'captured' | 'released' | 'expired';
  captured: bigint;
  refunded: bigint;
}

/** The simple in-memory model the real ledger must agree with. */
class Model {
  available = 0n;
  held = 0n;
  holds: ModelHold[] = [];
}

// Boundaries (0, all, all + a little) are drawn often: that is where off-by-one bugs live.
const permille = fc.oneof(fc.constantFrom(0, 1, 500, 999, 1000, 1001), fc.integer({ min: 0, max: 1100 }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 5_000_000 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('hold' as const), amount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000_000 })) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('capture' as const), i: fc.nat(20), permille }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('release' as const), i: fc.nat(20) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('expire' as const), i: fc.nat(20) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('refund' as const), i: fc.nat(20), permille, ofRest: fc.boolean() }), weight: 3 },
);

describe('ledger property: random credit/hold/capture/release/expire/refund sequences match a model', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(async () => app.close());

  it('balances, hold states and errors agree with the model; invariants hold after every sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40, size: 'max' }), fc.integer({ min: 1, max: 5_000_000 }), async (rest, firstCredit) => {
        const ops: Op[] = [{ op: 'credit', amount: firstCredit }, ...rest];
        const accountId = randomUUID();
        await app.db.query('INSERT INTO accounts (id) VALUES ($1)', [accountId]);
        const m = new Model();
        const code = async (p: Promise<unknown>): Promise<string | null> =>
          p.then(
            () => null,
            (e: unknown) => (e as { code?: string }).code ?? String(e),
          );
        for (const o of ops) {
          const h = m.holds.length === 0 ? undefined : m.holds[('i' in o ? o.i : 0) % m.holds.length];
          switch (o.op) {
            case 'credit':
              await app.db.tx((q) => grantCredit(q, { accountId, amountMicros: BigInt(o.amount), reason: 'prop' }));
              m.available += BigInt(o.amount);
              break;
            case 'hold': {
              const amount = BigInt(o.amount);
              let id = '';
              const err = await code(
                app.db.tx(async (q) => {
                  id = (await placeHold(q, { accountId, amountMicros: amount, kind: 'job', refId: randomUUID(), description: 'prop', expiresAt: new Date(Date.now() + 3600_000) })).holdId;
                }),
              );
              if (amount > m.available) expect(err).toBe('INSUFFICIENT_BALANCE');
              else {
                expect(err).toBeNull();
                m.available -= amount;
                m.held += amount;
                m.holds.push({ id, amount, status: 'pending', captured: 0n, refunded: 0n });
              }
              break;
            }
            case 'capture': {
              if (h === undefined) break;
              const amount = (h.amount * BigInt(o.permille)) / 1000n;
              const err = await code(app.db.tx((q) => captureHold(q, { holdId: h.id, amountMicros: amount, description: 'prop' })));
              if (h.status === 'captured')
                expect(err).toBeNull(); // no-op, first outcome
              else if (h.status !== 'pending') expect(err).toBe('HOLD_NOT_PENDING');
              else if (amount > h.amount) expect(err).toBe('CAPTURE_EXCEEDS_HOLD');
              else {
                expect(err).toBeNull();
                h.status = 'captured';
                h.captured = amount;
                m.held -= h.amount;
                m.available += h.amount - amount;
              }
              break;
            }
            case 'release': {
              if (h === undefined) break;
              const err = await code(app.db.tx((q) => releaseHold(q, { holdId: h.id, reason: 'prop' })));
              if (h.status === 'captured') expect(err).toBe('HOLD_NOT_PENDING');
              else {
                expect(err).toBeNull();
                if (h.status === 'pending') {
                  h.status = 'released';
                  m.held -= h.amount;
                  m.available += h.amount;
                }
              }
              break;
            }
            case 'expire': {
              if (h === undefined) break;
              await app.db.query("UPDATE billing_holds SET expires_at = now() - interval '1 second' WHERE id = $1 AND status = 'pending'", [h.id]);
              const swept = await expireDueHolds(app.db);
              expect(swept.includes(h.id)).toBe(h.status === 'pending');
              if (h.status === 'pending') {
                h.status = 'expired';
                m.held -= h.amount;
                m.available += h.amount;
              }
              break;
            }
            case 'refund': {
              if (h === undefined) break;
              // Of what is refundable (or of the hold, for holds that are not captured, to exercise that refusal too).
              const base = h.status !== 'captured' ? h.amount : o.ofRest ? h.captured - h.refunded : h.captured;
              const amount = (base * BigInt(o.permille)) / 1000n;
              const err = await code(app.db.tx((q) => refundCapture(q, { holdId: h.id, amountMicros: amount, reason: 'prop' })));
              if (amount <= 0n) expect(err).toBe('INVALID_AMOUNT');
              else if (h.status !== 'captured') expect(err).toBe('HOLD_NOT_PENDING');
              else if (amount > h.captured - h.refunded) expect(err).toBe('REFUND_EXCEEDS_CAPTURE');
              else {
                expect(err).toBeNull();
                h.refunded += amount;
                m.available += amount;
              }
              break;
            }
          }
          const w = await getWallet(app.db, accountId);
          expect(w.availableMicros).toBe(m.available);
          expect(w.heldMicros).toBe(m.held);
          expect(w.availableMicros).toBeGreaterThanOrEqual(0n);
        }
        for (const h of m.holds) {
          const r = await getHold(app.db, h.id);
          expect(r).toMatchObject({ status: h.status, capturedMicros: h.captured, refundedMicros: h.refunded });
        }
        expect(await checkLedgerInvariants(app.db)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
