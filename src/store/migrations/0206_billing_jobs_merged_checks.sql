-- Fewer, wider CHECK constraints on the tables every job submission writes
-- (docs/decisions/jobs-submission-path.md). PostgreSQL re-reads and prepares each CHECK
-- constraint of a table once per statement that writes it; a submission writes billing_holds,
-- ledger_transfers and jobs and updates billing_wallets, which carried 27 constraints between
-- them. The same conditions, ANDed into 5 (a NULL column passes as it did alone: only a false
-- part fails the whole), cut that fixed cost; the balance checks stay apart so a violation
-- still names them.

ALTER TABLE billing_wallets
  DROP CONSTRAINT billing_wallets_available_micros_check,
  DROP CONSTRAINT billing_wallets_held_micros_check,
  DROP CONSTRAINT billing_wallets_daily_limit_micros_check,
  DROP CONSTRAINT billing_wallets_monthly_limit_micros_check,
  DROP CONSTRAINT billing_wallets_per_job_max_micros_check,
  DROP CONSTRAINT billing_wallets_hold_expiry_seconds_check,
  DROP CONSTRAINT billing_wallets_ar_threshold_micros_check,
  DROP CONSTRAINT billing_wallets_ar_recharge_to_micros_check,
  DROP CONSTRAINT billing_wallets_ar_monthly_cap_micros_check,
  ADD CONSTRAINT billing_wallets_balances_check CHECK (available_micros >= 0 AND held_micros >= 0),
  ADD CONSTRAINT billing_wallets_settings_check CHECK (
    daily_limit_micros >= 0 AND monthly_limit_micros >= 0 AND per_job_max_micros >= 0 AND hold_expiry_seconds > 0
    AND ar_threshold_micros >= 0 AND ar_recharge_to_micros >= 0 AND ar_monthly_cap_micros >= 0);
ALTER TABLE billing_holds
  DROP CONSTRAINT billing_holds_kind_check,
  DROP CONSTRAINT billing_holds_status_check,
  DROP CONSTRAINT billing_holds_amount_micros_check,
  DROP CONSTRAINT billing_holds_captured_micros_check,
  DROP CONSTRAINT billing_holds_released_micros_check,
  DROP CONSTRAINT billing_holds_refunded_micros_check,
  DROP CONSTRAINT billing_holds_check,
  DROP CONSTRAINT billing_holds_check1,
  ADD CONSTRAINT billing_holds_valid_check CHECK (
    kind IN ('job', 'hardware') AND status IN ('pending', 'captured', 'released', 'expired')
    AND amount_micros >= 0 AND captured_micros >= 0 AND released_micros >= 0 AND refunded_micros >= 0
    AND captured_micros + released_micros <= amount_micros AND refunded_micros <= captured_micros);
ALTER TABLE ledger_transfers
  DROP CONSTRAINT ledger_transfers_kind_check,
  DROP CONSTRAINT ledger_transfers_amount_micros_check,
  DROP CONSTRAINT ledger_transfers_check,
  ADD CONSTRAINT ledger_transfers_valid_check CHECK (
    kind IN ('grant', 'topup', 'hold', 'capture', 'release', 'expire', 'refund', 'adjustment')
    AND amount_micros >= 0 AND from_account <> to_account);
ALTER TABLE jobs
  DROP CONSTRAINT jobs_status_check,
  DROP CONSTRAINT jobs_max_total_price_micros_check,
  DROP CONSTRAINT jobs_quoted_price_micros_check,
  DROP CONSTRAINT jobs_reserved_price_micros_check,
  DROP CONSTRAINT jobs_check,
  DROP CONSTRAINT jobs_check1,
  DROP CONSTRAINT jobs_check2,
  ADD CONSTRAINT jobs_valid_check CHECK (
    status IN ('quoted', 'reserved', 'queued', 'running', 'result_saved', 'completed', 'failed')
    AND max_total_price_micros >= 0 AND quoted_price_micros >= 0 AND reserved_price_micros >= 0
    AND reserved_price_micros <= max_total_price_micros
    AND (status <> 'completed' OR (receipt IS NOT NULL AND receipt_reference IS NOT NULL AND result IS NOT NULL))
    AND (status <> 'failed' OR error_code IS NOT NULL));
