/** The PaymentRecords port (src/billing/ports.ts): processor payments and events, auto-recharge attempts. */
import type { PaymentRecords } from '../../billing/ports.js';
import type { AttemptRow, PaymentRow } from '../../billing/records.js';
import { queryable } from './unit-of-work.js';

export const sqlPaymentRecords: PaymentRecords = {
  async recordPayment(tx, p) {
    await queryable(tx).query(
      `INSERT INTO billing_processor_payments (id, account_id, kind, purpose, amount_micros, status) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()`,
      [p.id, p.accountId, p.kind, p.purpose, p.amountMicros.toString(), p.status],
    );
  },

  async findPayment(tx, id) {
    const r = await queryable(tx).query<PaymentRow>('SELECT * FROM billing_processor_payments WHERE id = $1', [id]);
    return r.rows[0] ?? null;
  },

  async setPaymentStatus(tx, id, status) {
    await queryable(tx).query('UPDATE billing_processor_payments SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
  },

  async markPaymentFailed(tx, id) {
    await queryable(tx).query(`UPDATE billing_processor_payments SET status = 'failed', updated_at = now() WHERE id = $1 AND status <> 'succeeded'`, [id]);
  },

  async claimEvent(tx, e) {
    const r = await queryable(tx).query(
      `INSERT INTO billing_processor_events (event_id, type, object_id, event_created, outcome) VALUES ($1, $2, $3, $4, 'processing')
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [e.id, e.type, e.objectId, e.created],
    );
    return r.rows.length === 1;
  },

  async setEventOutcome(tx, eventId, outcome) {
    await queryable(tx).query('UPDATE billing_processor_events SET outcome = $2 WHERE event_id = $1', [eventId, outcome]);
  },

  async eventOutcome(tx, eventId) {
    const r = await queryable(tx).query<{ outcome: string }>('SELECT outcome FROM billing_processor_events WHERE event_id = $1', [eventId]);
    return r.rows[0]?.outcome ?? null;
  },

  async startAttempt(tx, a) {
    const r = await queryable(tx).query<AttemptRow>(
      `INSERT INTO billing_auto_recharge_attempts (id, account_id, trigger, amount_micros, status, available_before_micros)
       VALUES ($1, $2, $3, $4, 'pending', $5) ON CONFLICT (account_id) WHERE status = 'pending' DO NOTHING RETURNING *`,
      [a.id, a.accountId, a.trigger, a.amountMicros.toString(), a.availableBeforeMicros.toString()],
    );
    return r.rows[0] ?? null;
  },

  async recordSkippedAttempt(tx, a) {
    const r = await queryable(tx).query<AttemptRow>(
      `INSERT INTO billing_auto_recharge_attempts (id, account_id, trigger, amount_micros, status, available_before_micros, failure_code, failure_message, completed_at)
       VALUES ($1, $2, $3, $4, 'skipped', $5, $6, $7, now()) RETURNING *`,
      [a.id, a.accountId, a.trigger, a.amountMicros.toString(), a.availableBeforeMicros.toString(), a.code, a.message],
    );
    return r.rows[0] as AttemptRow;
  },

  async finishAttempt(tx, id, o) {
    const r = await queryable(tx).query<AttemptRow>(
      `UPDATE billing_auto_recharge_attempts SET status = $2, payment_intent_id = COALESCE($3, payment_intent_id), failure_code = $4, failure_message = $5, completed_at = now()
        WHERE id = $1 AND (status = 'pending' OR (status = 'failed' AND $2 = 'succeeded')) RETURNING *`,
      [id, o.status, o.paymentIntentId, o.code ?? null, o.message ?? null],
    );
    return r.rows[0] ?? null;
  },

  async setAttemptPaymentIntent(tx, id, paymentIntentId) {
    await queryable(tx).query('UPDATE billing_auto_recharge_attempts SET payment_intent_id = $2 WHERE id = $1', [id, paymentIntentId]);
  },

  async getAttempt(tx, id) {
    const r = await queryable(tx).query<AttemptRow>('SELECT * FROM billing_auto_recharge_attempts WHERE id = $1', [id]);
    return r.rows[0] ?? null;
  },

  async listAttempts(tx, accountId, limit) {
    const r = await queryable(tx).query<AttemptRow>('SELECT * FROM billing_auto_recharge_attempts WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2', [accountId, limit]);
    return r.rows;
  },

  async staleAttempts(tx, before, limit) {
    const r = await queryable(tx).query<AttemptRow>(`SELECT * FROM billing_auto_recharge_attempts WHERE status = 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2`, [before, limit]);
    return r.rows;
  },

  async rechargedSince(tx, accountId, since) {
    const r = await queryable(tx).query<{ s: string }>(
      `SELECT COALESCE(SUM(amount_micros), 0)::text AS s FROM billing_auto_recharge_attempts WHERE account_id = $1 AND status IN ('succeeded', 'pending') AND created_at >= $2`,
      [accountId, since],
    );
    return BigInt(r.rows[0]?.s ?? '0');
  },
};
