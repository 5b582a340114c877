-- Batch jobs (issue 22 item 3, docs/jobs.md#batches): a job may be charged less than its
-- reservation, item by item. The worker stores what completing captures (capture_micros, at most
-- the reserved price, computed by the capability from its own quote) and the receipt's lines with
-- the result (`result_saved`); jobs_complete captures that amount through ledger_capture, which
-- releases the rest of the hold in the same statement, and puts the lines into the receipt.
-- Jobs without them are charged their reserved price, as before.
ALTER TABLE jobs ADD COLUMN capture_micros bigint CHECK (capture_micros >= 0);
ALTER TABLE jobs ADD COLUMN receipt_lines jsonb;

CREATE OR REPLACE FUNCTION jobs_complete(p_job uuid, p_worker text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j jobs%ROWTYPE;
  c record;
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
  c := ledger_capture(j.hold_id, COALESCE(j.capture_micros, j.reserved_price_micros), 'job ' || j.id::text || ' (' || j.capability_id || ')', j.account_id);
  IF c.error IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'hold_lapsed', 'error', c.error::text);
  END IF;

  v_ref := 'rcpt_' || replace(j.id::text, '-', '');
  UPDATE jobs SET status = 'completed', receipt_reference = v_ref, lease_owner = NULL, lease_expires_at = NULL, updated_at = clock_timestamp(),
    receipt = jsonb_build_object(
      'receipt_reference', v_ref, 'job_id', j.id, 'capability_id', j.capability_id, 'payment_rail', 'account_core_balance',
      'currency', 'USD', 'amount_reserved', ledger_usd(j.reserved_price_micros), 'amount_captured', ledger_usd(c.captured),
      'amount_released', ledger_usd(c.released), 'balance_after', ledger_usd(c.balance_after), 'hold_id', j.hold_id,
      'ledger_transfer_ids', to_jsonb(c.transfer_ids),
      'issued_at', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      || CASE WHEN j.receipt_lines IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('lines', j.receipt_lines) END
  WHERE id = j.id
  RETURNING * INTO j;
  INSERT INTO job_transitions (job_id, from_status, to_status, worker, note)
  VALUES (j.id, 'result_saved', 'completed', p_worker, 'captured ' || ledger_usd(c.captured));
  RETURN jsonb_build_object('outcome', 'completed', 'job', jobs_row_json(j));
END;
$$;
