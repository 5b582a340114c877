-- The submission tells its caller whether the wallet now asks for an auto-recharge
-- (`ar_requested_at` set: this hold left `available` below the threshold, or an earlier request
-- is still unserved), so the service can call billing's afterDebit(account) right after the
-- commit, as the platform paths do, instead of leaving it to the billing-auto-recharge worker's
-- next tick. The flag is read inside the function from the wallet row the debit just updated
-- (and still locks): no extra round trip, and submissions of accounts without auto-recharge
-- never touch the hook. Only that read and the "recharge" key are new; the rest is 0202's body.
--
-- Result (jsonb), "created" outcome: {"outcome": "created", "job": …, "transitions": […], "recharge": true | false}

CREATE OR REPLACE FUNCTION jobs_submit(
  p_id uuid, p_account uuid, p_key text, p_request_hash text, p_capability text, p_product text,
  p_request jsonb, p_max bigint, p_quoted bigint, p_quote jsonb, p_hold_expires timestamptz,
  p_submitted_by text, p_price_note text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_hold uuid := gen_random_uuid();
  v_transfer uuid := gen_random_uuid();
  v_desc text := 'job ' || p_id::text || ' (' || p_capability || ')';
  v_available text := 'acct:' || p_account::text || ':available';
  v_held text := 'acct:' || p_account::text || ':held';
  v_out jsonb;
  v_recharge boolean;
BEGIN
  v_out := jobs_key_outcome(p_account, p_key, p_request_hash);
  IF v_out IS NOT NULL THEN
    RETURN v_out;
  END IF;
  IF p_quoted > p_max THEN
    RETURN jsonb_build_object('outcome', 'price_above');
  END IF;
  -- Fast path (no daily/monthly limit): checked and debited in one statement.
  IF NOT jobs_debit_wallet(p_account, p_quoted, true) THEN
    v_out := jobs_spend_refusal(p_account, p_quoted);
    IF v_out IS NOT NULL THEN
      RETURN jsonb_build_object('outcome', 'refused', 'info', v_out);
    END IF;
    PERFORM jobs_debit_wallet(p_account, p_quoted, false);
  END IF;
  -- The outbox flag the debit may just have set (the row is locked by the debit's UPDATE).
  SELECT w.ar_requested_at IS NOT NULL INTO v_recharge FROM billing_wallets w WHERE w.account_id = p_account;

  -- Foreign keys are checked at the end of the statement, so the CTEs' order does not matter.
  WITH h AS (
    INSERT INTO billing_holds (id, account_id, kind, ref_id, description, product, provider, amount_micros, status, expires_at, created_at)
    VALUES (v_hold, p_account, 'job', p_id::text, v_desc, p_product, NULL, p_quoted, 'pending', p_hold_expires, now())),
  t AS (
    INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
    VALUES (v_transfer, 'hold', v_available, v_held, p_quoted, p_account, v_hold, v_desc)),
  e AS (
    INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
    VALUES (v_transfer, v_available, p_account, -p_quoted), (v_transfer, v_held, p_account, p_quoted)),
  j AS (
    INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, product, request, max_total_price_micros,
                      quoted_price_micros, reserved_price_micros, quote, hold_id, status, submitted_by)
    VALUES (p_id, p_account, p_key, p_request_hash, p_capability, p_product, p_request, p_max, p_quoted, p_quoted, p_quote, v_hold, 'queued', p_submitted_by)
    RETURNING *),
  x AS (
    INSERT INTO job_transitions (job_id, from_status, to_status, note)
    VALUES (p_id, NULL, 'quoted', p_price_note), (p_id, 'quoted', 'reserved', 'hold ' || v_hold::text), (p_id, 'reserved', 'queued', NULL)
    RETURNING id, from_status, to_status, at, worker, note)
  SELECT jsonb_build_object('outcome', 'created',
           'job', (SELECT to_jsonb(j) || jsonb_build_object('created_us', (extract(epoch FROM j.created_at) * 1000000)::bigint) FROM j),
           'transitions', (SELECT jsonb_agg(jsonb_build_object('id', x.id, 'f', x.from_status, 't', x.to_status, 'at', x.at, 'w', x.worker, 'n', x.note) ORDER BY x.id) FROM x),
           'recharge', v_recharge)
    INTO v_out;
  RETURN v_out;
END;
$$;
