-- The worker's money step (result_saved → completed) as one statement, like jobs_submit:
-- lock the job, then the wallet, then the hold (the ledger's lock order), capture the hold
-- into platform revenue, write the receipt, the
-- `completed` transition, and return the job. It mirrors captureHold in
-- src/billing/store/ledger-sql.ts (same transfers, entries, wallet update and hold columns).
-- Also: one PL/pgSQL function for every wallet change of the job path (jobs_move_wallet).
--
-- jobs_complete only takes the ordinary path. Outcomes (jsonb):
--   {"outcome": "completed", "job": …}   charged now, or already completed earlier
--   {"outcome": "lease_lost"}           not this worker's job any more, or not result_saved
--   {"outcome": "fallback"}             the hold is not pending (expired, released, captured) or
--                                       not of the reserved amount: the caller runs the general
--                                       path (captureHold), which fails the job HOLD_EXPIRED or
--                                       returns the first outcome.

CREATE FUNCTION jobs_micros_text(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT (v / 1000000)::text || '.' || lpad((v % 1000000)::text, 6, '0')
$$;

-- Every wallet change of the job path: available += p_available, held += p_held, with the
-- auto-recharge outbox flag of setBalances (src/billing/store/ledger-sql.ts). With p_check
-- set it applies only when no daily/monthly window needs summing and the per-job maximum and
-- the balance allow p_check (checks in the WHERE are re-evaluated on the newest row version,
-- and the UPDATE's row lock is the wallet lock). True when the row was updated. PL/pgSQL, not
-- SQL: a SQL function with an UPDATE is never inlined, so it was parsed and planned per call.
CREATE FUNCTION jobs_move_wallet(p_account uuid, p_available bigint, p_held bigint, p_check bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE billing_wallets w SET available_micros = w.available_micros + p_available, held_micros = w.held_micros + p_held, updated_at = now(),
    ar_requested_at = CASE
      WHEN w.ar_enabled AND w.ar_paused_at IS NULL AND w.ar_threshold_micros IS NOT NULL AND w.ar_recharge_to_micros IS NOT NULL
           AND w.available_micros + p_available < w.ar_threshold_micros
      THEN COALESCE(w.ar_requested_at, now()) ELSE w.ar_requested_at END
  WHERE w.account_id = p_account
    AND (p_check IS NULL OR (w.daily_limit_micros IS NULL AND w.monthly_limit_micros IS NULL
                             AND p_check <= COALESCE(w.per_job_max_micros, p_check) AND p_check <= w.available_micros));
  RETURN FOUND;
END;
$$;

-- The submission's debit (0202) through it.
CREATE OR REPLACE FUNCTION jobs_debit_wallet(p_account uuid, p_amount bigint, p_fast boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RETURN jobs_move_wallet(p_account, -p_amount, p_amount, CASE WHEN p_fast THEN p_amount END);
END;
$$;

CREATE FUNCTION jobs_complete(p_job uuid, p_worker text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j jobs%ROWTYPE;
  w billing_wallets%ROWTYPE;
  h billing_holds%ROWTYPE;
  v_amount bigint;
  v_after bigint;
  v_capture uuid := gen_random_uuid();
  v_desc text;
  v_held text;
  v_ref text;
BEGIN
  SELECT * INTO j FROM jobs WHERE id = p_job FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('outcome', 'lease_lost');
  END IF;
  IF j.status = 'completed' THEN
    RETURN jsonb_build_object('outcome', 'completed', 'job', jobs_row_json(j));
  END IF;
  IF j.status <> 'result_saved' OR j.lease_owner IS DISTINCT FROM p_worker OR j.hold_id IS NULL THEN
    RETURN jsonb_build_object('outcome', 'lease_lost');
  END IF;
  SELECT * INTO w FROM billing_wallets WHERE account_id = j.account_id FOR UPDATE;
  SELECT * INTO h FROM billing_holds WHERE id = j.hold_id FOR UPDATE;
  IF NOT FOUND OR w.account_id IS NULL OR h.status <> 'pending' OR h.account_id <> j.account_id OR j.reserved_price_micros <> h.amount_micros THEN
    RETURN jsonb_build_object('outcome', 'fallback');
  END IF;

  v_amount := j.reserved_price_micros;
  v_after := w.available_micros;
  v_desc := 'job ' || j.id::text || ' (' || j.capability_id || ')';
  v_held := 'acct:' || h.account_id::text || ':held';
  v_ref := 'rcpt_' || replace(j.id::text, '-', '');

  INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
  VALUES (v_capture, 'capture', v_held, 'platform:revenue', v_amount, h.account_id, h.id, v_desc);
  INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
  VALUES (v_capture, v_held, h.account_id, -v_amount), (v_capture, 'platform:revenue', NULL, v_amount);
  PERFORM jobs_move_wallet(h.account_id, 0, -v_amount, NULL);
  UPDATE billing_holds SET status = 'captured', captured_micros = v_amount, released_micros = 0, resolved_at = now(),
    resolution_reason = v_desc, capture_balance_after_micros = v_after
  WHERE id = h.id;

  UPDATE jobs SET status = 'completed', receipt_reference = v_ref, lease_owner = NULL, lease_expires_at = NULL, updated_at = clock_timestamp(),
    receipt = jsonb_build_object(
      'receipt_reference', v_ref, 'job_id', j.id, 'capability_id', j.capability_id, 'payment_rail', 'account_core_balance',
      'currency', 'USD', 'amount_reserved', jobs_micros_text(j.reserved_price_micros), 'amount_captured', jobs_micros_text(v_amount),
      'amount_released', jobs_micros_text(0), 'balance_after', jobs_micros_text(v_after), 'hold_id', h.id,
      'ledger_transfer_ids', jsonb_build_array(v_capture),
      'issued_at', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  WHERE id = j.id
  RETURNING * INTO j;
  INSERT INTO job_transitions (job_id, from_status, to_status, worker, note)
  VALUES (j.id, 'result_saved', 'completed', p_worker, 'captured ' || jobs_micros_text(v_amount));
  RETURN jsonb_build_object('outcome', 'completed', 'job', jobs_row_json(j));
END;
$$;

