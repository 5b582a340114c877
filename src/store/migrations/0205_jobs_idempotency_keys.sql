-- Idempotency keys in a table of their own (docs/decisions/jobs-idempotency.md, "Why a table of its own").
--
-- Why: jobs had two indexes led by account_id, UNIQUE (account_id, idempotency_key) and
-- jobs_account_list_idx (account_id, created_at DESC, id DESC). On a table without statistics
-- (a new database, PGlite, a server with autovacuum off) the planner prices both alike for
-- `WHERE account_id = $1 AND idempotency_key = $2`, and the generic plan a pooled connection
-- caches for jobs_key_outcome took the list index and filtered on the key: every submission
-- read every earlier job of its account, so submissions slowed as the account's history grew
-- (2,700/s → 900/s within a minute of load on one test server). A key table whose only index
-- is its primary key leaves the planner one way to find a key, whatever the statistics say.
--
-- The key row is written by the same statement as the job (jobs_submit), so a refused or
-- failed submission leaves no key behind and the key can be used again, as before.

CREATE TABLE job_idempotency_keys (
  account_id uuid NOT NULL,
  idempotency_key text NOT NULL,
  job_id uuid NOT NULL REFERENCES jobs(id),
  PRIMARY KEY (account_id, idempotency_key)
);
INSERT INTO job_idempotency_keys (account_id, idempotency_key, job_id)
  SELECT account_id, idempotency_key, id FROM jobs;
-- Uniqueness now lives in the key table (jobs.idempotency_key stays, for the Job view).
ALTER TABLE jobs DROP CONSTRAINT jobs_account_id_idempotency_key_key;

-- As 0202's, with the key found through the key table and then the job through its primary key.
CREATE OR REPLACE FUNCTION jobs_key_outcome(p_account uuid, p_key text, p_request_hash text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_job uuid;
  v_prior jobs%ROWTYPE;
BEGIN
  -- Concurrent requests with one key: the first proceeds, the others learn it is in flight.
  IF NOT pg_try_advisory_xact_lock(hashtextextended('qrail.job:' || p_account::text || ':' || p_key, 0)) THEN
    RETURN jsonb_build_object('outcome', 'in_flight');
  END IF;
  SELECT k.job_id INTO v_job FROM job_idempotency_keys k WHERE k.account_id = p_account AND k.idempotency_key = p_key;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  SELECT * INTO STRICT v_prior FROM jobs WHERE id = v_job;
  IF v_prior.request_hash <> p_request_hash THEN
    RETURN jsonb_build_object('outcome', 'reused', 'info', jsonb_build_object('job_id', v_prior.id));
  END IF;
  RETURN jsonb_build_object('outcome', 'replayed', 'job', jobs_row_json(v_prior), 'transitions', jobs_transitions_json(v_prior.id));
END;
$$;

-- jobs_submit writes the key row (CTE k) and takes a cheaper "created" path
-- (docs/decisions/jobs-submission-path.md):
--  * the fast-path debit is the function's own UPDATE … RETURNING, which also yields the
--    auto-recharge flag: no nested jobs_debit_wallet → jobs_move_wallet calls and no second
--    read of the wallet row (a hot row: each read walks its chain of recent versions). The SET
--    is jobs_move_wallet's (0203) with p_available = -p_quoted, p_held = p_quoted; the slow
--    path (limits to sum, or the fast check refused) still goes through the 0202/0203 functions.
--  * "created" returns only what the database generated (hold id, the job's timestamps, the
--    transitions' times); the caller has every other field already. Replays still return the
--    stored row.
-- Otherwise the same rows, checks in the same order and outcomes as 0204.
--
-- Result (jsonb), "created": {"outcome": "created", "hold_id": uuid, "created_us": bigint,
--   "updated_us": bigint, "at": [quoted_us, reserved_us, queued_us], "recharge": boolean}

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
  -- Fast path (no daily/monthly limit): checked, debited and the outbox flag read in one statement.
  UPDATE billing_wallets w SET available_micros = w.available_micros - p_quoted, held_micros = w.held_micros + p_quoted, updated_at = now(),
    ar_requested_at = CASE
      WHEN w.ar_enabled AND w.ar_paused_at IS NULL AND w.ar_threshold_micros IS NOT NULL AND w.ar_recharge_to_micros IS NOT NULL
           AND w.available_micros - p_quoted < w.ar_threshold_micros
      THEN COALESCE(w.ar_requested_at, now()) ELSE w.ar_requested_at END
  WHERE w.account_id = p_account
    AND w.daily_limit_micros IS NULL AND w.monthly_limit_micros IS NULL
    AND p_quoted <= COALESCE(w.per_job_max_micros, p_quoted) AND p_quoted <= w.available_micros
  RETURNING w.ar_requested_at IS NOT NULL INTO v_recharge;
  IF NOT FOUND THEN
    v_out := jobs_spend_refusal(p_account, p_quoted);
    IF v_out IS NOT NULL THEN
      RETURN jsonb_build_object('outcome', 'refused', 'info', v_out);
    END IF;
    PERFORM jobs_debit_wallet(p_account, p_quoted, false);
    SELECT w.ar_requested_at IS NOT NULL INTO v_recharge FROM billing_wallets w WHERE w.account_id = p_account;
  END IF;

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
    RETURNING created_at, updated_at),
  k AS (
    INSERT INTO job_idempotency_keys (account_id, idempotency_key, job_id) VALUES (p_account, p_key, p_id)),
  x AS (
    INSERT INTO job_transitions (job_id, from_status, to_status, note)
    VALUES (p_id, NULL, 'quoted', p_price_note), (p_id, 'quoted', 'reserved', 'hold ' || v_hold::text), (p_id, 'reserved', 'queued', NULL)
    RETURNING id, at)
  SELECT jsonb_build_object('outcome', 'created', 'hold_id', v_hold,
           'created_us', (SELECT (extract(epoch FROM j.created_at) * 1000000)::bigint FROM j),
           'updated_us', (SELECT (extract(epoch FROM j.updated_at) * 1000000)::bigint FROM j),
           'at', (SELECT jsonb_agg((extract(epoch FROM x.at) * 1000000)::bigint ORDER BY x.id) FROM x),
           'recharge', v_recharge)
    INTO v_out;
  RETURN v_out;
END;
$$;
