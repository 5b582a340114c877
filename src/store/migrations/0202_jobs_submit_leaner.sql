-- A leaner job submission (see docs/decisions/jobs-submission-path.md). Per submission the
-- database writes 8 rows (hold, transfer, 2 entries, job, 3 transitions) and updates the
-- wallet; what this migration cuts is the work around them:
--  * indexes nobody reads: the receipt reference is `rcpt_` + the job id, unique by
--    construction; job_transitions is keyed by (job_id, id), the only way it is read; the
--    spend-control index of 0201 covers what billing_holds_account_idx did (same keys).
--  * statements: with no daily/monthly limit (the common case) the wallet is checked and
--    debited by one conditional UPDATE instead of SELECT … FOR UPDATE + UPDATE; the hold,
--    transfer, entries, job and transitions are one statement of data-modifying CTEs.
-- Behaviour is unchanged: same rows, same checks in the same order, same outcomes.

ALTER TABLE jobs DROP CONSTRAINT jobs_receipt_reference_key;
DROP INDEX billing_holds_account_idx;

ALTER TABLE job_transitions DROP CONSTRAINT job_transitions_pkey;
DROP INDEX job_transitions_job_idx;
ALTER TABLE job_transitions ADD PRIMARY KEY (job_id, id);

-- Moves p_amount from available to held on the wallet row. With p_fast it does so only when
-- no daily/monthly window needs summing and the per-job maximum and the balance allow it (the
-- checks sit in the WHERE, re-evaluated on the latest row version under concurrency, and the
-- UPDATE's row lock is the wallet lock); false when it did not. As setBalances: a debit that
-- leaves available below the threshold asks for a recharge (outbox).
CREATE FUNCTION jobs_debit_wallet(p_account uuid, p_amount bigint, p_fast boolean) RETURNS boolean LANGUAGE sql AS $$
  WITH u AS (
    UPDATE billing_wallets SET available_micros = available_micros - p_amount, held_micros = held_micros + p_amount, updated_at = now(),
      ar_requested_at = CASE
        WHEN ar_enabled AND ar_paused_at IS NULL AND ar_threshold_micros IS NOT NULL AND ar_recharge_to_micros IS NOT NULL
             AND available_micros - p_amount < ar_threshold_micros
        THEN COALESCE(ar_requested_at, now()) ELSE ar_requested_at END
    WHERE account_id = p_account
      AND (NOT p_fast OR (daily_limit_micros IS NULL AND monthly_limit_micros IS NULL
                          AND (per_job_max_micros IS NULL OR p_amount <= per_job_max_micros) AND p_amount <= available_micros))
    RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM u)
$$;

-- The idempotency step: null when the key is free (and now locked by this transaction),
-- else the outcome: in flight, reused with another body, or the original job (replayed).
CREATE FUNCTION jobs_key_outcome(p_account uuid, p_key text, p_request_hash text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_prior jobs%ROWTYPE;
BEGIN
  -- Concurrent requests with one key: the first proceeds, the others learn it is in flight.
  IF NOT pg_try_advisory_xact_lock(hashtextextended('qrail.job:' || p_account::text || ':' || p_key, 0)) THEN
    RETURN jsonb_build_object('outcome', 'in_flight');
  END IF;
  SELECT * INTO v_prior FROM jobs WHERE account_id = p_account AND idempotency_key = p_key;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF v_prior.request_hash <> p_request_hash THEN
    RETURN jsonb_build_object('outcome', 'reused', 'info', jsonb_build_object('job_id', v_prior.id));
  END IF;
  RETURN jsonb_build_object('outcome', 'replayed', 'job', jobs_row_json(v_prior), 'transitions', jobs_transitions_json(v_prior.id));
END;
$$;

-- The slow path of the spend check (a daily/monthly limit is set, or the fast path refused):
-- locks the wallet, sums the windows and checks in the order of checkSpend (per-job, daily,
-- monthly, balance). Null when the hold is allowed, else the numbers for the refusal.
CREATE FUNCTION jobs_spend_refusal(p_account uuid, p_amount bigint) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  w billing_wallets%ROWTYPE;
  today bigint := 0;
  month bigint := 0;
BEGIN
  SELECT * INTO w FROM billing_wallets WHERE account_id = p_account FOR UPDATE;
  IF NOT FOUND THEN
    -- No wallet yet: nothing to pay with, unless the job is free (then create it, as lockWallet does).
    IF p_amount > 0 THEN
      RETURN jsonb_build_object('available', '0');
    END IF;
    INSERT INTO billing_wallets (account_id) VALUES (p_account) ON CONFLICT (account_id) DO NOTHING;
    RETURN NULL;
  END IF;
  IF w.daily_limit_micros IS NOT NULL THEN
    today := jobs_spent_since(p_account, date_trunc('day', now(), 'UTC'));
  END IF;
  IF w.monthly_limit_micros IS NOT NULL THEN
    month := jobs_spent_since(p_account, date_trunc('month', now(), 'UTC'));
  END IF;
  IF (w.per_job_max_micros IS NULL OR p_amount <= w.per_job_max_micros)
     AND (w.daily_limit_micros IS NULL OR today + p_amount <= w.daily_limit_micros)
     AND (w.monthly_limit_micros IS NULL OR month + p_amount <= w.monthly_limit_micros)
     AND p_amount <= w.available_micros THEN
    RETURN NULL;
  END IF;
  RETURN jsonb_build_object('available', w.available_micros::text, 'per_job_max', w.per_job_max_micros::text,
    'daily_limit', w.daily_limit_micros::text, 'monthly_limit', w.monthly_limit_micros::text,
    'spent_today', today::text, 'spent_month', month::text);
END;
$$;

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
           'transitions', (SELECT jsonb_agg(jsonb_build_object('id', x.id, 'f', x.from_status, 't', x.to_status, 'at', x.at, 'w', x.worker, 'n', x.note) ORDER BY x.id) FROM x))
    INTO v_out;
  RETURN v_out;
END;
$$;
