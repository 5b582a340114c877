/** The Wallets port (src/billing/ports.ts): spend controls, auto-recharge state and the processor profile of a wallet. */
import type { Wallets } from '../../billing/ports.js';
import { queryable } from './unit-of-work.js';

const str = (v: bigint | null): string | null => (v === null ? null : v.toString());

export const sqlWallets: Wallets = {
  async saveSpendControls(tx, accountId, c, resume) {
    const ar = c.autoRecharge;
    // The recharge request is recomputed from scratch with the ledger's trigger (migration 0400).
    await queryable(tx).query(
      `UPDATE billing_wallets SET daily_limit_micros = $2, monthly_limit_micros = $3, per_job_max_micros = $4, hardware_allowed = $5,
         hold_expiry_seconds = $6, ar_enabled = $7, ar_threshold_micros = $8, ar_recharge_to_micros = $9, ar_monthly_cap_micros = $10,
         ar_payment_method = $11,
         ar_paused_at = CASE WHEN $12 THEN NULL ELSE ar_paused_at END,
         ar_pause_reason = CASE WHEN $12 THEN NULL ELSE ar_pause_reason END,
         ar_consecutive_failures = CASE WHEN $12 THEN 0 ELSE ar_consecutive_failures END,
         ar_requested_at = CASE WHEN ledger_recharge_due($7, CASE WHEN $12 THEN NULL ELSE ar_paused_at END, $8::bigint, $9::bigint, available_micros)
                                THEN COALESCE(ar_requested_at, now()) ELSE NULL END,
         updated_at = now()
       WHERE account_id = $1`,
      [
        accountId,
        str(c.dailyLimitMicros),
        str(c.monthlyLimitMicros),
        str(c.perJobMaxMicros),
        c.hardwareAllowed,
        c.holdExpirySeconds,
        ar.enabled,
        str(ar.thresholdMicros),
        str(ar.rechargeToMicros),
        str(ar.monthlyCapMicros),
        ar.paymentMethod,
        resume,
      ],
    );
  },

  async clearRechargeRequest(tx, accountId) {
    await queryable(tx).query('UPDATE billing_wallets SET ar_requested_at = NULL WHERE account_id = $1', [accountId]);
  },

  async setRechargeHealth(tx, accountId, h) {
    const pause = h.pause === 'keep' || h.pause === 'resume' ? h.pause : 'pause';
    await queryable(tx).query(
      `UPDATE billing_wallets SET ar_consecutive_failures = $2,
         ar_paused_at = CASE $3 WHEN 'pause' THEN now() WHEN 'resume' THEN NULL ELSE ar_paused_at END,
         ar_pause_reason = CASE $3 WHEN 'pause' THEN $4 WHEN 'resume' THEN NULL ELSE ar_pause_reason END
       WHERE account_id = $1`,
      [accountId, h.consecutiveFailures, pause, typeof h.pause === 'object' ? h.pause.reason : null],
    );
  },

  async requestedRecharges(tx, limit) {
    const r = await queryable(tx).query<{ account_id: string }>(
      `SELECT account_id FROM billing_wallets WHERE ar_requested_at IS NOT NULL AND ar_enabled AND ar_paused_at IS NULL ORDER BY ar_requested_at LIMIT $1`,
      [limit],
    );
    return r.rows.map((x) => x.account_id);
  },

  async saveCustomer(tx, accountId, customerId) {
    const q = queryable(tx);
    await q.query('INSERT INTO billing_wallets (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
    await q.query('UPDATE billing_wallets SET processor_customer_id = $2 WHERE account_id = $1 AND processor_customer_id IS NULL', [accountId, customerId]);
    const r = await q.query<{ processor_customer_id: string }>('SELECT processor_customer_id FROM billing_wallets WHERE account_id = $1', [accountId]);
    return r.rows[0]?.processor_customer_id ?? customerId;
  },

  async accountByCustomer(tx, customerId) {
    const r = await queryable(tx).query<{ account_id: string }>('SELECT account_id FROM billing_wallets WHERE processor_customer_id = $1', [customerId]);
    return r.rows[0]?.account_id ?? null;
  },

  async setDefaultPaymentMethod(tx, accountId, paymentMethod, at) {
    const r = await queryable(tx).query(
      `UPDATE billing_wallets SET default_payment_method = $2, default_payment_method_at = $3, updated_at = now()
        WHERE account_id = $1 AND (default_payment_method_at IS NULL OR default_payment_method_at <= $3) RETURNING account_id`,
      [accountId, paymentMethod, at],
    );
    return r.rows.length === 1;
  },
};
