import type { Queryable } from '../../store/db.js';

export type PaymentPurpose = 'checkout' | 'topup' | 'auto_recharge';

export interface PaymentRow {
  id: string;
  account_id: string;
  kind: 'checkout_session' | 'payment_intent';
  purpose: PaymentPurpose;
  amount_micros: bigint;
  status: string;
  created_at: Date;
  updated_at: Date;
}

export async function recordPayment(q: Queryable, p: { id: string; accountId: string; kind: PaymentRow['kind']; purpose: PaymentPurpose; amountMicros: bigint; status: string }): Promise<void> {
  await q.query(
    `INSERT INTO billing_processor_payments (id, account_id, kind, purpose, amount_micros, status) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()`,
    [p.id, p.accountId, p.kind, p.purpose, p.amountMicros.toString(), p.status],
  );
}

export async function findPayment(q: Queryable, id: string): Promise<PaymentRow | null> {
  const r = await q.query<PaymentRow>('SELECT * FROM billing_processor_payments WHERE id = $1', [id]);
  return r.rows[0] ?? null;
}

export async function setPaymentStatus(q: Queryable, id: string, status: string): Promise<void> {
  await q.query('UPDATE billing_processor_payments SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
}

/** Claims an event id; false when it was already applied (or is being applied by a concurrent delivery). */
export async function claimEvent(q: Queryable, e: { id: string; type: string; objectId: string | null; created: Date }): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO billing_processor_events (event_id, type, object_id, event_created, outcome) VALUES ($1, $2, $3, $4, 'processing')
     ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
    [e.id, e.type, e.objectId, e.created],
  );
  return r.rows.length === 1;
}

export async function setEventOutcome(q: Queryable, eventId: string, outcome: string): Promise<void> {
  await q.query('UPDATE billing_processor_events SET outcome = $2 WHERE event_id = $1', [eventId, outcome]);
}

export async function eventOutcome(q: Queryable, eventId: string): Promise<string | null> {
  const r = await q.query<{ outcome: string }>('SELECT outcome FROM billing_processor_events WHERE event_id = $1', [eventId]);
  return r.rows[0]?.outcome ?? null;
}

/** Saves the processor customer unless one is already set; returns the one in effect. */
export async function saveCustomer(q: Queryable, accountId: string, customerId: string): Promise<string> {
  await q.query('INSERT INTO billing_wallets (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
  await q.query('UPDATE billing_wallets SET processor_customer_id = $2 WHERE account_id = $1 AND processor_customer_id IS NULL', [accountId, customerId]);
  const r = await q.query<{ processor_customer_id: string }>('SELECT processor_customer_id FROM billing_wallets WHERE account_id = $1', [accountId]);
  return r.rows[0]?.processor_customer_id ?? customerId;
}

export async function accountByCustomer(q: Queryable, customerId: string): Promise<string | null> {
  const r = await q.query<{ account_id: string }>('SELECT account_id FROM billing_wallets WHERE processor_customer_id = $1', [customerId]);
  return r.rows[0]?.account_id ?? null;
}

/** Out-of-order tolerant: an older event never overwrites what a newer one set. */
export async function setDefaultPaymentMethod(q: Queryable, accountId: string, paymentMethod: string, at: Date): Promise<boolean> {
  const r = await q.query(
    `UPDATE billing_wallets SET default_payment_method = $2, default_payment_method_at = $3, updated_at = now()
      WHERE account_id = $1 AND (default_payment_method_at IS NULL OR default_payment_method_at <= $3) RETURNING account_id`,
    [accountId, paymentMethod, at],
  );
  return r.rows.length === 1;
}

export interface AttemptRow {
  id: string;
  account_id: string;
  trigger: 'threshold' | 'test';
  amount_micros: bigint;
  status: 'pending' | 'succeeded' | 'failed' | 'skipped';
  payment_intent_id: string | null;
  failure_code: string | null;
  failure_message: string | null;
  available_before_micros: bigint;
  created_at: Date;
  completed_at: Date | null;
}

/** Inserts a pending attempt; null when another attempt of the account is still pending. */
export async function startAttempt(q: Queryable, a: { id: string; accountId: string; trigger: AttemptRow['trigger']; amountMicros: bigint; availableBeforeMicros: bigint }): Promise<AttemptRow | null> {
  const r = await q.query<AttemptRow>(
    `INSERT INTO billing_auto_recharge_attempts (id, account_id, trigger, amount_micros, status, available_before_micros)
     VALUES ($1, $2, $3, $4, 'pending', $5) ON CONFLICT (account_id) WHERE status = 'pending' DO NOTHING RETURNING *`,
    [a.id, a.accountId, a.trigger, a.amountMicros.toString(), a.availableBeforeMicros.toString()],
  );
  return r.rows[0] ?? null;
}

export async function recordSkippedAttempt(q: Queryable, a: { id: string; accountId: string; trigger: AttemptRow['trigger']; amountMicros: bigint; availableBeforeMicros: bigint; code: string; message: string }): Promise<AttemptRow> {
  const r = await q.query<AttemptRow>(
    `INSERT INTO billing_auto_recharge_attempts (id, account_id, trigger, amount_micros, status, available_before_micros, failure_code, failure_message, completed_at)
     VALUES ($1, $2, $3, $4, 'skipped', $5, $6, $7, now()) RETURNING *`,
    [a.id, a.accountId, a.trigger, a.amountMicros.toString(), a.availableBeforeMicros.toString(), a.code, a.message],
  );
  return r.rows[0] as AttemptRow;
}

/** Moves a pending (or failed, when a late success arrives) attempt to its outcome; returns the row if it changed. */
export async function finishAttempt(q: Queryable, id: string, o: { status: 'succeeded' | 'failed'; paymentIntentId: string | null; code?: string | null; message?: string | null }): Promise<AttemptRow | null> {
  const r = await q.query<AttemptRow>(
    `UPDATE billing_auto_recharge_attempts SET status = $2, payment_intent_id = COALESCE($3, payment_intent_id), failure_code = $4, failure_message = $5, completed_at = now()
      WHERE id = $1 AND (status = 'pending' OR (status = 'failed' AND $2 = 'succeeded')) RETURNING *`,
    [id, o.status, o.paymentIntentId, o.code ?? null, o.message ?? null],
  );
  return r.rows[0] ?? null;
}

export async function listAttempts(q: Queryable, accountId: string, limit: number): Promise<AttemptRow[]> {
  const r = await q.query<AttemptRow>('SELECT * FROM billing_auto_recharge_attempts WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2', [accountId, limit]);
  return r.rows;
}

export async function rechargedSince(q: Queryable, accountId: string, since: Date): Promise<bigint> {
  const r = await q.query<{ s: string }>(
    `SELECT COALESCE(SUM(amount_micros), 0)::text AS s FROM billing_auto_recharge_attempts WHERE account_id = $1 AND status IN ('succeeded', 'pending') AND created_at >= $2`,
    [accountId, since],
  );
  return BigInt(r.rows[0]?.s ?? '0');
}

export async function requestedRecharges(q: Queryable, limit: number): Promise<string[]> {
  const r = await q.query<{ account_id: string }>(
    `SELECT account_id FROM billing_wallets WHERE ar_requested_at IS NOT NULL AND ar_enabled AND ar_paused_at IS NULL ORDER BY ar_requested_at LIMIT $1`,
    [limit],
  );
  return r.rows.map((x) => x.account_id);
}
