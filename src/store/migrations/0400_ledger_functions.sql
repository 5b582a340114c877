-- Money has one owner (issue 18, docs/decisions/billing-one-ledger-implementation.md): every
-- movement of money is one of the ledger_* functions below, and every other path calls them.
-- Before this migration the rules lived twice: in TypeScript (the old ledger-sql.ts and
-- spend-controls.ts) and again in the job submission and completion functions (0201–0205),
-- which inserted holds, transfers and entries and updated wallets themselves.
--
-- The functions never raise for a refusal: they return it as `error`, a json object
-- {"code", "message", "details"} worded here, next to the rule that refused (json, not jsonb,
-- so the details keep their key order). A caller rolls back by throwing (TypeScript) or by
-- returning before it wrote anything (jobs_submit). Lock order, as before: the account's
-- wallet row first, then the hold row.

-- Micro-USD as the API writes it: six decimals, sign kept ("-0.500000").
CREATE FUNCTION ledger_usd(p bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p < 0 THEN '-' ELSE '' END || (abs(p) / 1000000)::text || '.' || lpad((abs(p) % 1000000)::text, 6, '0')
$$;

-- The auto-recharge trigger: enabled, not paused, configured, and available below the threshold.
CREATE FUNCTION ledger_recharge_due(p_enabled boolean, p_paused_at timestamptz, p_threshold bigint, p_recharge_to bigint, p_available bigint)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT p_enabled AND p_paused_at IS NULL AND p_threshold IS NOT NULL AND p_recharge_to IS NOT NULL AND p_available < p_threshold
$$;

-- The outbox flag after a change of available (written in the change's own transaction; the
-- recharge runs after commit): set once when due, kept otherwise. Every UPDATE of a wallet's
-- balances below sets it through this function, a SQL expression the planner inlines.
CREATE FUNCTION ledger_recharge_requested_at(p_enabled boolean, p_paused_at timestamptz, p_threshold bigint, p_recharge_to bigint, p_available bigint, p_requested_at timestamptz)
RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN ledger_recharge_due(p_enabled, p_paused_at, p_threshold, p_recharge_to, p_available) THEN COALESCE(p_requested_at, now()) ELSE p_requested_at END
$$;

-- What holds placed since p_since committed: pending amounts + captured − refunded.
CREATE FUNCTION ledger_spent_since(p_account uuid, p_since timestamptz) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN amount_micros
                           WHEN status = 'captured' THEN captured_micros - refunded_micros ELSE 0 END), 0)::bigint
    FROM billing_holds WHERE account_id = p_account AND created_at >= p_since
$$;

-- Creates the wallet row if absent and locks it for the rest of the transaction.
CREATE FUNCTION ledger_lock_wallet(p_account uuid) RETURNS billing_wallets LANGUAGE plpgsql AS $$
DECLARE
  w billing_wallets%ROWTYPE;
BEGIN
  INSERT INTO billing_wallets (account_id) VALUES (p_account) ON CONFLICT (account_id) DO NOTHING;
  SELECT * INTO w FROM billing_wallets WHERE account_id = p_account FOR UPDATE;
  RETURN w;
END;
$$;

-- Moves p_amount from available to held and records the hold, after the spend controls and the
-- balance allow it. Checks, in this order (the owner hears of the limit they set before "top
-- up"): hardware allowed, per-job maximum, daily limit, monthly limit (both windows: pending +
-- captured − refunded of the holds placed since the start of the UTC day/month at p_now), balance.
-- The caller gives a reference not used before (a new job or held-job id); ledger_place_hold_once
-- is the variant that answers a repeated reference.
--
-- Fast path, the common case (no window to sum): every limit is a column of the wallet row, so
-- one UPDATE checks (in its WHERE, re-evaluated on the newest row version under concurrency),
-- locks and debits. Otherwise, or when the fast check fails, the slow path locks the row, sums
-- the windows and finds the limit to name.
CREATE FUNCTION ledger_place_hold(
  p_account uuid, p_kind text, p_ref text, p_amount bigint, p_description text, p_product text, p_provider text,
  p_expires timestamptz, p_now timestamptz,
  OUT hold_id uuid, OUT available_after bigint, OUT recharge boolean, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  w billing_wallets%ROWTYPE;
  v_hold uuid := gen_random_uuid();
  v_transfer uuid := gen_random_uuid();
  v_available text := 'acct:' || p_account::text || ':available';
  v_held text := 'acct:' || p_account::text || ':held';
  v_checked boolean := false;
  v_today bigint := 0;
  v_month bigint := 0;
  v_amount text;
BEGIN
  IF p_amount < 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A hold amount must not be negative.');
    RETURN;
  END IF;
  -- At most twice: the fast path, then (if it did not apply) the same statement after the slow
  -- path's checks passed. The debit, hold, transfer and entries are one statement: the inserts
  -- read the UPDATE's row, so they happen exactly when the debit does.
  LOOP
    WITH d AS (
      UPDATE billing_wallets x SET available_micros = x.available_micros - p_amount, held_micros = x.held_micros + p_amount, updated_at = now(),
        ar_requested_at = ledger_recharge_requested_at(x.ar_enabled, x.ar_paused_at, x.ar_threshold_micros, x.ar_recharge_to_micros, x.available_micros - p_amount, x.ar_requested_at)
      WHERE x.account_id = p_account
        AND (v_checked OR (x.daily_limit_micros IS NULL AND x.monthly_limit_micros IS NULL
                           AND (x.hardware_allowed OR p_kind <> 'hardware')
                           AND p_amount <= COALESCE(x.per_job_max_micros, p_amount) AND p_amount <= x.available_micros))
      RETURNING x.available_micros, x.ar_requested_at IS NOT NULL AS recharge),
    h AS (
      INSERT INTO billing_holds (id, account_id, kind, ref_id, description, product, provider, amount_micros, status, expires_at, created_at)
      SELECT v_hold, p_account, p_kind, p_ref, p_description, p_product, p_provider, p_amount, 'pending', p_expires, p_now FROM d),
    t AS (
      INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
      SELECT v_transfer, 'hold', v_available, v_held, p_amount, p_account, v_hold, p_description FROM d),
    e AS (
      INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
      SELECT v_transfer, v_available, p_account, -p_amount FROM d
      UNION ALL SELECT v_transfer, v_held, p_account, p_amount FROM d)
    SELECT d.available_micros, d.recharge INTO available_after, recharge FROM d;
    IF FOUND THEN
      hold_id := v_hold;
      RETURN;
    END IF;
    IF v_checked THEN
      RAISE EXCEPTION 'wallet of % vanished under its lock', p_account;
    END IF;

    -- Slow path: a window to sum, or the fast check failed. Lock, sum, find the limit to name.
    SELECT * INTO w FROM billing_wallets x WHERE x.account_id = p_account FOR UPDATE;
    IF NOT FOUND THEN
      -- No wallet yet: the defaults (no limits, hardware allowed, nothing available) apply.
      IF p_amount > 0 THEN
        error := json_build_object('code', 'INSUFFICIENT_BALANCE', 'message', 'The available balance 0.000000 does not cover ' || ledger_usd(p_amount) || '.',
          'details', json_build_object('available', '0.000000', 'required', ledger_usd(p_amount)));
        RETURN;
      END IF;
      w := ledger_lock_wallet(p_account);
    END IF;
    v_amount := ledger_usd(p_amount);
    IF w.daily_limit_micros IS NOT NULL THEN
      v_today := ledger_spent_since(p_account, date_trunc('day', p_now, 'UTC'));
    END IF;
    IF w.monthly_limit_micros IS NOT NULL THEN
      v_month := ledger_spent_since(p_account, date_trunc('month', p_now, 'UTC'));
    END IF;
    IF p_kind = 'hardware' AND NOT w.hardware_allowed THEN
      error := json_build_object('code', 'HARDWARE_DISABLED', 'message', 'Hardware spending is turned off in the spend controls.',
        'details', json_build_object('limit', 'hardware_allowed'));
    ELSIF p_amount > w.per_job_max_micros THEN
      error := json_build_object('code', 'SPEND_LIMIT_PER_JOB',
        'message', 'The amount ' || v_amount || ' is above the per-job maximum ' || ledger_usd(w.per_job_max_micros) || '.',
        'details', json_build_object('limit', 'per_job_max', 'limit_value', ledger_usd(w.per_job_max_micros), 'amount', v_amount));
    ELSIF v_today + p_amount > w.daily_limit_micros THEN
      error := json_build_object('code', 'SPEND_LIMIT_DAILY',
        'message', 'The amount ' || v_amount || ' would take today''s spend above the daily limit ' || ledger_usd(w.daily_limit_micros) || '.',
        'details', json_build_object('limit', 'daily_limit', 'limit_value', ledger_usd(w.daily_limit_micros), 'spent', ledger_usd(v_today), 'amount', v_amount));
    ELSIF v_month + p_amount > w.monthly_limit_micros THEN
      error := json_build_object('code', 'SPEND_LIMIT_MONTHLY',
        'message', 'The amount ' || v_amount || ' would take this month''s spend above the monthly limit ' || ledger_usd(w.monthly_limit_micros) || '.',
        'details', json_build_object('limit', 'monthly_limit', 'limit_value', ledger_usd(w.monthly_limit_micros), 'spent', ledger_usd(v_month), 'amount', v_amount));
    ELSIF p_amount > w.available_micros THEN
      error := json_build_object('code', 'INSUFFICIENT_BALANCE',
        'message', 'The available balance ' || ledger_usd(w.available_micros) || ' does not cover ' || v_amount || '.',
        'details', json_build_object('available', ledger_usd(w.available_micros), 'required', v_amount));
    END IF;
    IF error IS NOT NULL THEN
      RETURN;
    END IF;
    v_checked := true;
  END LOOP;
END;
$$;

-- ledger_place_hold for a reference that may have been used: placing a hold again for the
-- same (kind, ref) with the same account and amount returns the existing hold (`existing`,
-- nothing moves); with anything else → HOLD_EXISTS. The wallet is locked before the lookup, so
-- two such calls of one account are answered one after the other.
CREATE FUNCTION ledger_place_hold_once(
  p_account uuid, p_kind text, p_ref text, p_amount bigint, p_description text, p_product text, p_provider text,
  p_expires timestamptz, p_now timestamptz,
  OUT hold_id uuid, OUT existing boolean, OUT available_after bigint, OUT recharge boolean, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  w billing_wallets%ROWTYPE;
  p billing_holds%ROWTYPE;
  r record;
BEGIN
  IF p_amount < 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A hold amount must not be negative.');
    RETURN;
  END IF;
  w := ledger_lock_wallet(p_account);
  SELECT * INTO p FROM billing_holds x WHERE x.kind = p_kind AND x.ref_id = p_ref;
  IF FOUND THEN
    IF p.account_id = p_account AND p.amount_micros = p_amount THEN
      hold_id := p.id;
      existing := true;
      available_after := w.available_micros;
      recharge := w.ar_requested_at IS NOT NULL;
    ELSE
      error := json_build_object('code', 'HOLD_EXISTS', 'message', 'A hold for ' || p_kind || ' ' || p_ref || ' already exists.',
        'details', CASE WHEN p.account_id = p_account THEN json_build_object('hold_id', p.id) ELSE '{}'::json END);
    END IF;
    RETURN;
  END IF;
  SELECT * INTO r FROM ledger_place_hold(p_account, p_kind, p_ref, p_amount, p_description, p_product, p_provider, p_expires, p_now);
  hold_id := r.hold_id;
  existing := false;
  available_after := r.available_after;
  recharge := r.recharge;
  error := r.error;
END;
$$;

-- Locks wallet then hold (the hold's owner, or p_account when the caller knows it). Null when
-- the hold does not exist or, with p_account, belongs to another account.
CREATE FUNCTION ledger_lock_hold(p_hold uuid, p_account uuid) RETURNS billing_holds LANGUAGE plpgsql AS $$
DECLARE
  v_account uuid := p_account;
  h billing_holds%ROWTYPE;
BEGIN
  IF v_account IS NULL THEN
    SELECT x.account_id INTO v_account FROM billing_holds x WHERE x.id = p_hold;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM 1 FROM billing_wallets x WHERE x.account_id = v_account FOR UPDATE;
  SELECT * INTO h FROM billing_holds x WHERE x.id = p_hold FOR UPDATE;
  IF NOT FOUND OR h.account_id <> v_account THEN
    RETURN NULL;
  END IF;
  RETURN h;
END;
$$;

-- Captures ≤ the held amount into platform revenue and returns the rest to available — exactly
-- once. Capturing an already captured hold moves nothing and returns the first outcome
-- (`already`), whatever amount is asked the second time. A released or expired hold →
-- HOLD_NOT_PENDING; more than held → CAPTURE_EXCEEDS_HOLD; unknown → HOLD_NOT_FOUND.
CREATE FUNCTION ledger_capture(
  p_hold uuid, p_amount bigint, p_description text, p_account uuid,
  OUT transfer_ids uuid[], OUT captured bigint, OUT released bigint, OUT balance_after bigint, OUT already boolean, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  h billing_holds%ROWTYPE;
  v_rest bigint;
  v_capture uuid := gen_random_uuid();
  v_release uuid;
  v_held text;
  v_available text;
BEGIN
  IF p_amount < 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A capture amount must not be negative.');
    RETURN;
  END IF;
  h := ledger_lock_hold(p_hold, p_account);
  IF h.id IS NULL THEN
    error := json_build_object('code', 'HOLD_NOT_FOUND', 'message', 'No hold ' || p_hold::text || '.');
    RETURN;
  END IF;
  IF h.status = 'captured' THEN
    transfer_ids := ARRAY(SELECT t.id FROM ledger_transfers t WHERE t.hold_id = h.id AND t.kind IN ('capture', 'release') ORDER BY t.created_at, t.kind);
    captured := h.captured_micros;
    released := h.released_micros;
    balance_after := COALESCE(h.capture_balance_after_micros, 0);
    already := true;
    RETURN;
  END IF;
  IF h.status <> 'pending' THEN
    error := json_build_object('code', 'HOLD_NOT_PENDING', 'message', 'The hold was already ' || h.status || '; nothing can be captured.',
      'details', json_build_object('status', h.status, 'hold_id', h.id));
    RETURN;
  END IF;
  IF p_amount > h.amount_micros THEN
    error := json_build_object('code', 'CAPTURE_EXCEEDS_HOLD',
      'message', 'Cannot capture ' || ledger_usd(p_amount) || ' from a hold of ' || ledger_usd(h.amount_micros) || '.',
      'details', json_build_object('held', ledger_usd(h.amount_micros), 'requested', ledger_usd(p_amount)));
    RETURN;
  END IF;

  v_rest := h.amount_micros - p_amount;
  v_held := 'acct:' || h.account_id::text || ':held';
  v_available := 'acct:' || h.account_id::text || ':available';
  IF v_rest > 0 THEN
    v_release := gen_random_uuid();
  END IF;
  WITH t AS (
    INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
    SELECT v_capture, 'capture', v_held, 'platform:revenue', p_amount, h.account_id, h.id, p_description
    UNION ALL
    SELECT v_release, 'release', v_held, v_available, v_rest, h.account_id, h.id, 'unused part of hold: ' || p_description WHERE v_rest > 0),
  e AS (
    INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
    SELECT v_capture, v_held, h.account_id, -p_amount
    UNION ALL SELECT v_capture, 'platform:revenue', NULL, p_amount
    UNION ALL SELECT v_release, v_held, h.account_id, -v_rest WHERE v_rest > 0
    UNION ALL SELECT v_release, v_available, h.account_id, v_rest WHERE v_rest > 0),
  w AS (
    UPDATE billing_wallets x SET available_micros = x.available_micros + v_rest, held_micros = x.held_micros - h.amount_micros, updated_at = now(),
      ar_requested_at = ledger_recharge_requested_at(x.ar_enabled, x.ar_paused_at, x.ar_threshold_micros, x.ar_recharge_to_micros, x.available_micros + v_rest, x.ar_requested_at)
    WHERE x.account_id = h.account_id
    RETURNING x.available_micros)
  UPDATE billing_holds x SET status = 'captured', captured_micros = p_amount, released_micros = v_rest, resolved_at = now(),
    resolution_reason = p_description, capture_balance_after_micros = (SELECT w.available_micros FROM w)
  WHERE x.id = h.id
  RETURNING x.capture_balance_after_micros INTO balance_after;
  transfer_ids := CASE WHEN v_rest > 0 THEN ARRAY[v_capture, v_release] ELSE ARRAY[v_capture] END;
  captured := p_amount;
  released := v_rest;
  already := false;
END;
$$;

-- Returns the whole held amount to available — exactly once. Releasing an already released
-- (or expired) hold moves nothing and returns the first outcome (`already`); a captured hold →
-- HOLD_NOT_PENDING. With p_due set it is the expiry sweeper's call: it expires the hold only if
-- it is still pending and past its expiry at p_due, and otherwise returns nothing (all null).
CREATE FUNCTION ledger_release(
  p_hold uuid, p_reason text, p_account uuid, p_due timestamptz,
  OUT transfer_id uuid, OUT released bigint, OUT status text, OUT already boolean, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  h billing_holds%ROWTYPE;
  v_as text := CASE WHEN p_due IS NULL THEN 'released' ELSE 'expired' END;
  v_reason text := CASE WHEN p_due IS NULL THEN p_reason ELSE 'hold expired' END;
  v_transfer uuid := gen_random_uuid();
  v_held text;
  v_available text;
BEGIN
  h := ledger_lock_hold(p_hold, p_account);
  IF h.id IS NULL THEN
    error := json_build_object('code', 'HOLD_NOT_FOUND', 'message', 'No hold ' || p_hold::text || '.');
    RETURN;
  END IF;
  IF p_due IS NOT NULL AND (h.status <> 'pending' OR h.expires_at > p_due) THEN
    RETURN;
  END IF;
  IF h.status IN ('released', 'expired') THEN
    SELECT t.id INTO transfer_id FROM ledger_transfers t WHERE t.hold_id = h.id AND t.kind IN ('release', 'expire') ORDER BY t.created_at, t.kind LIMIT 1;
    released := h.released_micros;
    status := h.status;
    already := true;
    RETURN;
  END IF;
  IF h.status = 'captured' THEN
    error := json_build_object('code', 'HOLD_NOT_PENDING', 'message', 'The hold was already captured; it cannot be released.',
      'details', json_build_object('status', h.status, 'hold_id', h.id));
    RETURN;
  END IF;

  v_held := 'acct:' || h.account_id::text || ':held';
  v_available := 'acct:' || h.account_id::text || ':available';
  WITH t AS (
    INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
    VALUES (v_transfer, CASE WHEN v_as = 'expired' THEN 'expire' ELSE 'release' END, v_held, v_available, h.amount_micros, h.account_id, h.id, v_reason)),
  e AS (
    INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
    VALUES (v_transfer, v_held, h.account_id, -h.amount_micros), (v_transfer, v_available, h.account_id, h.amount_micros)),
  w AS (
    UPDATE billing_wallets x SET available_micros = x.available_micros + h.amount_micros, held_micros = x.held_micros - h.amount_micros, updated_at = now(),
      ar_requested_at = ledger_recharge_requested_at(x.ar_enabled, x.ar_paused_at, x.ar_threshold_micros, x.ar_recharge_to_micros, x.available_micros + h.amount_micros, x.ar_requested_at)
    WHERE x.account_id = h.account_id)
  UPDATE billing_holds x SET status = v_as, released_micros = x.amount_micros, resolved_at = now(), resolution_reason = v_reason WHERE x.id = h.id;
  transfer_id := v_transfer;
  released := h.amount_micros;
  status := v_as;
  already := false;
END;
$$;

-- Returns captured money to the wallet (a refund of a charge, not of a processor payment), up
-- to what was captured and not yet refunded.
CREATE FUNCTION ledger_refund(
  p_hold uuid, p_amount bigint, p_reason text, p_account uuid,
  OUT transfer_id uuid, OUT refunded bigint, OUT balance_after bigint, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  h billing_holds%ROWTYPE;
  v_refundable bigint;
  v_transfer uuid := gen_random_uuid();
  v_available text;
BEGIN
  IF p_amount <= 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A refund must be positive.');
    RETURN;
  END IF;
  h := ledger_lock_hold(p_hold, p_account);
  IF h.id IS NULL THEN
    error := json_build_object('code', 'HOLD_NOT_FOUND', 'message', 'No hold ' || p_hold::text || '.');
    RETURN;
  END IF;
  IF h.status <> 'captured' THEN
    error := json_build_object('code', 'HOLD_NOT_PENDING', 'message', 'Only a captured hold can be refunded.',
      'details', json_build_object('status', h.status, 'hold_id', h.id));
    RETURN;
  END IF;
  v_refundable := h.captured_micros - h.refunded_micros;
  IF p_amount > v_refundable THEN
    error := json_build_object('code', 'REFUND_EXCEEDS_CAPTURE', 'message', 'Only ' || ledger_usd(v_refundable) || ' can still be refunded.',
      'details', json_build_object('refundable', ledger_usd(v_refundable)));
    RETURN;
  END IF;
  v_available := 'acct:' || h.account_id::text || ':available';
  WITH t AS (
    INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, hold_id, description)
    VALUES (v_transfer, 'refund', 'platform:revenue', v_available, p_amount, h.account_id, h.id, p_reason)),
  e AS (
    INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
    VALUES (v_transfer, 'platform:revenue', NULL, -p_amount), (v_transfer, v_available, h.account_id, p_amount)),
  b AS (
    UPDATE billing_holds x SET refunded_micros = x.refunded_micros + p_amount WHERE x.id = h.id)
  UPDATE billing_wallets x SET available_micros = x.available_micros + p_amount, updated_at = now(),
    ar_requested_at = ledger_recharge_requested_at(x.ar_enabled, x.ar_paused_at, x.ar_threshold_micros, x.ar_recharge_to_micros, x.available_micros + p_amount, x.ar_requested_at)
  WHERE x.account_id = h.account_id
  RETURNING x.available_micros INTO balance_after;
  transfer_id := v_transfer;
  refunded := p_amount;
END;
$$;

-- Credits available: 'grant' (promotional credit) or 'topup' (money paid through the
-- processor). A key is unique over the whole ledger (a grant's within its account): the same
-- key twice credits once (`credited` false, the first transfer's id). A credit that lifts
-- available to the threshold or above satisfies a pending recharge request.
CREATE FUNCTION ledger_credit(
  p_account uuid, p_kind text, p_amount bigint, p_description text, p_key text,
  OUT credited boolean, OUT transfer_id uuid, OUT balance_after bigint, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  w billing_wallets%ROWTYPE;
  v_transfer uuid := gen_random_uuid();
  v_from text := CASE p_kind WHEN 'grant' THEN 'platform:promotional' ELSE 'processor:clearing' END;
  v_to text := 'acct:' || p_account::text || ':available';
  v_key text := CASE WHEN p_kind = 'grant' AND p_key IS NOT NULL THEN 'grant:' || p_account::text || ':' || p_key ELSE p_key END;
BEGIN
  IF p_amount <= 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A credit must be positive.');
    RETURN;
  END IF;
  w := ledger_lock_wallet(p_account);
  INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, description, idempotency_key)
  VALUES (v_transfer, p_kind, v_from, v_to, p_amount, p_account, p_description, v_key)
  ON CONFLICT (idempotency_key) DO NOTHING;
  IF NOT FOUND THEN
    SELECT t.id INTO transfer_id FROM ledger_transfers t WHERE t.idempotency_key = v_key;
    credited := false;
    balance_after := w.available_micros;
    RETURN;
  END IF;
  INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
  VALUES (v_transfer, v_from, NULL, -p_amount), (v_transfer, v_to, p_account, p_amount);
  UPDATE billing_wallets x SET available_micros = x.available_micros + p_amount, updated_at = now(),
    ar_requested_at = CASE WHEN x.ar_threshold_micros IS NOT NULL AND x.available_micros + p_amount >= x.ar_threshold_micros THEN NULL ELSE x.ar_requested_at END
  WHERE x.account_id = p_account
  RETURNING x.available_micros INTO balance_after;
  credited := true;
  transfer_id := v_transfer;
END;
$$;
