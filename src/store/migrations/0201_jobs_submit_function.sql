-- The whole job submission of DESIGN §4 as one SQL function, so a submission is one
-- statement (one round trip, its own transaction) instead of a dozen: idempotency lock and
-- lookup → price ceiling → wallet lock → spend controls and balance → hold (transfer,
-- entries, wallet balances) → job `queued` with its quoted/reserved/queued transitions.
--
-- It mirrors src/billing/store/ledger-sql.ts placeHold (same rows, same order of checks:
-- per-job, daily, monthly, balance; the same auto-recharge outbox flag). Refusals write
-- nothing and return the numbers the caller needs to build the error with the billing
-- module's checkSpend, so messages and codes stay in one place.
--
-- Result (jsonb): {"outcome": "created" | "replayed" | "reused" | "in_flight" | "price_above" | "refused",
--                  "job": <jobs row + created_us>, "transitions": [...], "info": {...}}

-- The spend-control sums read the holds of one account since the start of the UTC day or
-- month; covering the summed columns lets them be answered from the index.
CREATE INDEX billing_holds_spend_idx ON billing_holds (account_id, created_at)
  INCLUDE (status, amount_micros, captured_micros, refunded_micros);

CREATE FUNCTION jobs_row_json(j jobs) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT to_jsonb(j) || jsonb_build_object('created_us', (extract(epoch FROM j.created_at) * 1000000)::bigint)
$$;

CREATE FUNCTION jobs_transitions_json(p_job uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT COALESCE(jsonb_agg(jsonb_build_object('id', t.id, 'f', t.from_status, 't', t.to_status, 'at', t.at, 'w', t.worker, 'n', t.note) ORDER BY t.id), '[]'::jsonb)
    FROM job_transitions t WHERE t.job_id = p_job
$$;

CREATE FUNCTION jobs_spent_since(p_account uuid, p_since timestamptz) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN amount_micros
                           WHEN status = 'captured' THEN captured_micros - refunded_micros ELSE 0 END), 0)::bigint
    FROM billing_holds WHERE account_id = p_account AND created_at >= p_since
$$;

CREATE FUNCTION jobs_submit(
  p_id uuid, p_account uuid, p_key text, p_request_hash text, p_capability text, p_product text,
  p_request jsonb, p_max bigint, p_quoted bigint, p_quote jsonb, p_hold_expires timestamptz,
  p_submitted_by text, p_price_note text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_prior jobs%ROWTYPE;
  v_job jobs%ROWTYPE;
  v_w billing_wallets%ROWTYPE;
  v_now timestamptz := now();
  v_today bigint := 0;
  v_month bigint := 0;
  v_hold uuid := gen_random_uuid();
  v_transfer uuid := gen_random_uuid();
  v_desc text := 'job ' || p_id::text || ' (' || p_capability || ')';
  v_available bigint;
BEGIN
  -- Concurrent requests with one key: the first proceeds, the others learn it is in flight.
  IF NOT pg_try_advisory_xact_lock(hashtextextended('qrail.job:' || p_account::text || ':' || p_key, 0)) THEN
    RETURN jsonb_build_object('outcome', 'in_flight');
  END IF;
  SELECT * INTO v_prior FROM jobs WHERE account_id = p_account AND idempotency_key = p_key;
  IF FOUND THEN
    IF v_prior.request_hash <> p_request_hash THEN
      RETURN jsonb_build_object('outcome', 'reused', 'info', jsonb_build_object('job_id', v_prior.id));
    END IF;
    RETURN jsonb_build_object('outcome', 'replayed', 'job', jobs_row_json(v_prior), 'transitions', jobs_transitions_json(v_prior.id));
  END IF;
  IF p_quoted > p_max THEN
    RETURN jsonb_build_object('outcome', 'price_above');
  END IF;

  SELECT * INTO v_w FROM billing_wallets WHERE account_id = p_account FOR UPDATE;
  IF NOT FOUND THEN
    -- No wallet yet: nothing to pay with, unless the job is free (then create it, as lockWallet does).
    IF p_quoted > 0 THEN
      RETURN jsonb_build_object('outcome', 'refused', 'info', jsonb_build_object('available', '0'));
    END IF;
    INSERT INTO billing_wallets (account_id) VALUES (p_account) ON CONFLICT (account_id) DO NOTHING;
    SELECT * INTO v_w FROM billing_wallets WHERE account_id = p_account FOR UPDATE;
  END IF;
  v_available := v_w.available_micros;
  IF v_w.daily_limit_micros IS NOT NULL THEN
    v_today := jobs_spent_since(p_account, date_trunc('day', v_now, 'UTC'));
  END IF;
  IF v_w.monthly_limit_micros IS NOT NULL THEN
    v_month := jobs_spent_since(p_account, date_trunc('month', v_now, 'UTC'));
  END IF;
  IF (v_w.per_job_max_micros IS NOT NULL AND p_quoted > v_w.per_job_max_micros)
     OR (v_w.daily_limit_micros IS NOT NULL AND v_today + p_quoted > v_w.daily_limit_micros)
     OR (v_w.monthly_limit_micros IS NOT NULL AND v_month + p_quoted > v_w.monthly_limit_micros)
     OR p_quoted > v_available THEN
    RETURN jsonb_build_object('outcome', 'refused', 'info', jsonb_build_object(
      'available', v_available::text, 'per_job_max', v_w.per_job_max_micros::text,
      'daily_limit', v_w.daily_limit_micros::text, 'monthly_limit', v_w.monthly_limit_micros::text,
      'spent_today', v_today::text, 'spent_month', v_month::text));
  END IF;

  INSERT INTO billing_holds (id, account_id, kind, ref_id, description, product, provider, amount_micros, status, expires_at, created_at)
  VALUES (v_hold, p_account, 'job', p_id::text, v_desc, p_product, NULL, p_quoted, 'pending', p_hold_expires, v_now);
  INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
  VALUES (v_transfer, 'hold', 'acct:' || p_account::text || ':available', 'acct:' || p_account::text || ':held', p_quoted, p_account, v_hold, v_desc);
  INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
  VALUES (v_transfer, 'acct:' || p_account::text || ':available', p_account, -p_quoted),
         (v_transfer, 'acct:' || p_account::text || ':held', p_account, p_quoted);
  -- As setBalances: a debit that leaves available below the threshold asks for a recharge (outbox).
  UPDATE billing_wallets SET available_micros = v_available - p_quoted, held_micros = v_w.held_micros + p_quoted, updated_at = now(),
    ar_requested_at = CASE
      WHEN ar_enabled AND ar_paused_at IS NULL AND ar_threshold_micros IS NOT NULL AND ar_recharge_to_micros IS NOT NULL
           AND v_available - p_quoted < ar_threshold_micros
      THEN COALESCE(ar_requested_at, now()) ELSE ar_requested_at END
  WHERE account_id = p_account;

  INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, product, request, max_total_price_micros,
                    quoted_price_micros, reserved_price_micros, quote, hold_id, status, submitted_by)
  VALUES (p_id, p_account, p_key, p_request_hash, p_capability, p_product, p_request, p_max, p_quoted, p_quoted, p_quote, v_hold, 'queued', p_submitted_by)
  RETURNING * INTO v_job;
  INSERT INTO job_transitions (job_id, from_status, to_status, note)
  VALUES (p_id, NULL, 'quoted', p_price_note), (p_id, 'quoted', 'reserved', 'hold ' || v_hold::text), (p_id, 'reserved', 'queued', NULL);
  RETURN jsonb_build_object('outcome', 'created', 'job', jobs_row_json(v_job), 'transitions', jobs_transitions_json(p_id));
END;
$$;
