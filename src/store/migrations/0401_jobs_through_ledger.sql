-- The job submission and completion move money through the ledger functions of 0400 instead of
-- their own copies (docs/decisions/billing-one-ledger-implementation.md). Still one statement
-- each: jobs_submit = idempotency (jobs_key_outcome, unchanged) → price ceiling → ledger_place_hold
-- → job, key and transitions; jobs_complete = job lock → ledger_capture → receipt.
--
-- Changes of interface, both callers being src/store/repositories/jobs-*.ts:
--  * jobs_submit and jobs_submit_many lose p_price_note: the note is worded here, as the
--    receipt's amounts are; "created" returns it ("note").
--  * refusals carry the error worded where the rule refused it: "refused" (ledger_place_hold's
--    spend controls and balance) and "price_above" (the price ceiling, checked here and nowhere
--    else) return "error" = the json text {"code", "message", "details"} (text inside the jsonb
--    result, so the details keep their key order).
--  * jobs_complete takes an already captured hold as the ledger answers it (the first outcome,
--    as the TypeScript fallback did) and returns "hold_lapsed" with the ledger's error for a hold
--    it cannot capture (expired or released: the caller fails the job HOLD_EXPIRED).

DROP FUNCTION jobs_submit_many(uuid[], uuid[], text[], text[], text[], text[], text[], bigint[], bigint[], text[], timestamptz[], text[], text[]);
DROP FUNCTION jobs_submit(uuid, uuid, text, text, text, text, jsonb, bigint, bigint, jsonb, timestamptz, text, text);

-- Result (jsonb), "created": {"outcome": "created", "hold_id": uuid, "created_us": bigint,
--   "updated_us": bigint, "at": [quoted_us, reserved_us, queued_us], "recharge": boolean, "note": text}
CREATE FUNCTION jobs_submit(
  p_id uuid, p_account uuid, p_key text, p_request_hash text, p_capability text, p_product text,
  p_request jsonb, p_max bigint, p_quoted bigint, p_quote jsonb, p_hold_expires timestamptz, p_submitted_by text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb;
  v_note text;
  h record;
BEGIN
  v_out := jobs_key_outcome(p_account, p_key, p_request_hash);
  IF v_out IS NOT NULL THEN
    RETURN v_out;
  END IF;
  IF p_quoted > p_max THEN
    RETURN jsonb_build_object('outcome', 'price_above', 'error', json_build_object('code', 'PRICE_ABOVE_MAXIMUM',
      'message', 'The quoted price ' || ledger_usd(p_quoted) || ' is above max_total_price ' || ledger_usd(p_max) || '.',
      'details', json_build_object('quoted_price', ledger_usd(p_quoted), 'max_total_price', ledger_usd(p_max)))::text);
  END IF;
  h := ledger_place_hold(p_account, 'job', p_id::text, p_quoted, 'job ' || p_id::text || ' (' || p_capability || ')', p_product, NULL, p_hold_expires, now());
  IF h.error IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'refused', 'error', h.error::text);
  END IF;
  v_note := 'price ' || ledger_usd(p_quoted);

  WITH j AS (
    INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, product, request, max_total_price_micros,
                      quoted_price_micros, reserved_price_micros, quote, hold_id, status, submitted_by)
    VALUES (p_id, p_account, p_key, p_request_hash, p_capability, p_product, p_request, p_max, p_quoted, p_quoted, p_quote, h.hold_id, 'queued', p_submitted_by)
    RETURNING created_at, updated_at),
  k AS (
    INSERT INTO job_idempotency_keys (account_id, idempotency_key, job_id) VALUES (p_account, p_key, p_id)),
  x AS (
    INSERT INTO job_transitions (job_id, from_status, to_status, note)
    VALUES (p_id, NULL, 'quoted', v_note), (p_id, 'quoted', 'reserved', 'hold ' || h.hold_id::text), (p_id, 'reserved', 'queued', NULL)
    RETURNING id, at)
  SELECT jsonb_build_object('outcome', 'created', 'hold_id', h.hold_id,
           'created_us', (SELECT (extract(epoch FROM j.created_at) * 1000000)::bigint FROM j),
           'updated_us', (SELECT (extract(epoch FROM j.updated_at) * 1000000)::bigint FROM j),
           'at', (SELECT jsonb_agg((extract(epoch FROM x.at) * 1000000)::bigint ORDER BY x.id) FROM x),
           'recharge', h.recharge, 'note', v_note)
    INTO v_out;
  RETURN v_out;
END;
$$;

-- As 0207's: jobs_submit for each item, in the order given, in the statement's one transaction.
CREATE FUNCTION jobs_submit_many(
  p_id uuid[], p_account uuid[], p_key text[], p_request_hash text[], p_capability text[], p_product text[],
  p_request text[], p_max bigint[], p_quoted bigint[], p_quote text[], p_hold_expires timestamptz[], p_submitted_by text[]
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb := '[]'::jsonb;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_id, 1), 0) LOOP
    v_out := v_out || jsonb_build_array(jobs_submit(p_id[i], p_account[i], p_key[i], p_request_hash[i], p_capability[i], p_product[i],
      p_request[i]::jsonb, p_max[i], p_quoted[i], p_quote[i]::jsonb, p_hold_expires[i], p_submitted_by[i]));
  END LOOP;
  RETURN v_out;
END;
$$;

-- Outcomes (jsonb):
--   {"outcome": "completed", "job": …}                charged now (or the hold was already captured), or completed earlier
--   {"outcome": "lease_lost"}                        not this worker's job any more, or not result_saved
--   {"outcome": "hold_lapsed", "error": <json text>}  the ledger refused the capture; nothing was written
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
  c := ledger_capture(j.hold_id, j.reserved_price_micros, 'job ' || j.id::text || ' (' || j.capability_id || ')', j.account_id);
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
  WHERE id = j.id
  RETURNING * INTO j;
  INSERT INTO job_transitions (job_id, from_status, to_status, worker, note)
  VALUES (j.id, 'result_saved', 'completed', p_worker, 'captured ' || ledger_usd(c.captured));
  RETURN jsonb_build_object('outcome', 'completed', 'job', jobs_row_json(j));
END;
$$;

-- The copies these replace (0201–0205): nothing calls them any more.
DROP FUNCTION jobs_spend_refusal(uuid, bigint);
DROP FUNCTION jobs_debit_wallet(uuid, bigint, boolean);
DROP FUNCTION jobs_move_wallet(uuid, bigint, bigint, bigint);
DROP FUNCTION jobs_spent_since(uuid, timestamptz);
DROP FUNCTION jobs_micros_text(bigint);
