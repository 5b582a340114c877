-- Per-member budgets and who submitted (issue #39 items 4 and 6; docs/organizations.md#budgets).
--
-- A hold records who placed it (`submitted_by`: 'user:<uuid>' for a person's session,
-- 'credential:<uuid>' for a machine credential or its access token, 'session:<uuid>' for a
-- session's exchanged access token, 'jwt:<iss>#<sub>' for a trusted issuer) and the member whose
-- budget it counts against (`member_id`: the person, the credential's creator, the session's person).
-- The member's daily and monthly limits (org_members, migration 1800) are checked by
-- ledger_place_hold beside the organization's own spend controls, under the same wallet row
-- lock, so concurrent spends of one organization are checked one after the other.
ALTER TABLE billing_holds ADD COLUMN submitted_by text;
ALTER TABLE billing_holds ADD COLUMN member_id uuid;
-- The member's spend windows: an ordered probe of the member's holds since the window's start.
CREATE INDEX billing_holds_member_spend_idx ON billing_holds (account_id, member_id, created_at) WHERE member_id IS NOT NULL;

-- Who submitted, shown on the held job, the execution job and (through their holds) the ledger.
ALTER TABLE billing_held_jobs ADD COLUMN submitted_by text;
ALTER TABLE execution_jobs ADD COLUMN submitted_by text;

-- The member whose budget a submitter's spending counts against; null when none (an external issuer).
CREATE FUNCTION ledger_member_of(p_by text) RETURNS uuid LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_id text := substr(p_by, strpos(p_by, ':') + 1);
  v_member uuid;
BEGIN
  IF p_by IS NULL OR v_id !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    RETURN NULL;
  ELSIF p_by LIKE 'user:%' THEN
    RETURN v_id::uuid;
  ELSIF p_by LIKE 'credential:%' THEN
    SELECT created_by INTO v_member FROM agent_credentials WHERE id = v_id::uuid;
  ELSIF p_by LIKE 'session:%' THEN
    SELECT user_id INTO v_member FROM sessions WHERE id = v_id::uuid;
  END IF;
  RETURN v_member;
END;
$$;

-- What a member's holds placed since p_since committed: pending + captured − refunded (as ledger_spent_since).
CREATE FUNCTION ledger_member_spent_since(p_account uuid, p_member uuid, p_since timestamptz) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT COALESCE(SUM(CASE WHEN status = 'pending' THEN amount_micros
                           WHEN status = 'captured' THEN captured_micros - refunded_micros ELSE 0 END), 0)::bigint
    FROM billing_holds WHERE account_id = p_account AND member_id = p_member AND created_at >= p_since
$$;

-- As 0400's, with p_by (who submitted; optional, so every existing caller keeps its call) and
-- the member's limits: checked after the organization's own (hardware allowed, per-job, daily,
-- monthly) and before the balance, and only on the slow path, which holds the wallet lock while
-- it sums. A member with a limit never takes the fast path.
DROP FUNCTION ledger_place_hold_once(uuid, text, text, bigint, text, text, text, timestamptz, timestamptz);
DROP FUNCTION ledger_place_hold(uuid, text, text, bigint, text, text, text, timestamptz, timestamptz);

CREATE FUNCTION ledger_place_hold(
  p_account uuid, p_kind text, p_ref text, p_amount bigint, p_description text, p_product text, p_provider text,
  p_expires timestamptz, p_now timestamptz, p_by text DEFAULT NULL,
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
  v_member uuid := ledger_member_of(p_by);
  v_mdaily bigint;
  v_mmonthly bigint;
  v_mtoday bigint := 0;
  v_mmonth bigint := 0;
BEGIN
  IF p_amount < 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A hold amount must not be negative.');
    RETURN;
  END IF;
  IF v_member IS NOT NULL THEN
    SELECT m.daily_limit_micros, m.monthly_limit_micros INTO v_mdaily, v_mmonthly FROM org_members m WHERE m.account_id = p_account AND m.user_id = v_member;
  END IF;
  LOOP
    WITH d AS (
      UPDATE billing_wallets x SET available_micros = x.available_micros - p_amount, held_micros = x.held_micros + p_amount, updated_at = now(),
        ar_requested_at = ledger_recharge_requested_at(x.ar_enabled, x.ar_paused_at, x.ar_threshold_micros, x.ar_recharge_to_micros, x.available_micros - p_amount, x.ar_requested_at)
      WHERE x.account_id = p_account
        AND (v_checked OR (x.daily_limit_micros IS NULL AND x.monthly_limit_micros IS NULL AND v_mdaily IS NULL AND v_mmonthly IS NULL
                           AND (x.hardware_allowed OR p_kind <> 'hardware')
                           AND p_amount <= COALESCE(x.per_job_max_micros, p_amount) AND p_amount <= x.available_micros))
      RETURNING x.available_micros, x.ar_requested_at IS NOT NULL AS recharge),
    h AS (
      INSERT INTO billing_holds (id, account_id, kind, ref_id, description, product, provider, amount_micros, status, expires_at, created_at, submitted_by, member_id)
      SELECT v_hold, p_account, p_kind, p_ref, p_description, p_product, p_provider, p_amount, 'pending', p_expires, p_now, p_by, v_member FROM d),
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

    -- Slow path: lock the wallet (every spend of the organization queues here), then read the
    -- member's limits again and sum the windows, which now include every committed hold.
    SELECT * INTO w FROM billing_wallets x WHERE x.account_id = p_account FOR UPDATE;
    IF NOT FOUND THEN
      IF p_amount > 0 THEN
        error := json_build_object('code', 'INSUFFICIENT_BALANCE', 'message', 'The available balance 0.000000 does not cover ' || ledger_usd(p_amount) || '.',
          'details', json_build_object('available', '0.000000', 'required', ledger_usd(p_amount)));
        RETURN;
      END IF;
      w := ledger_lock_wallet(p_account);
    END IF;
    IF v_member IS NOT NULL THEN
      SELECT m.daily_limit_micros, m.monthly_limit_micros INTO v_mdaily, v_mmonthly FROM org_members m WHERE m.account_id = p_account AND m.user_id = v_member;
    END IF;
    v_amount := ledger_usd(p_amount);
    IF w.daily_limit_micros IS NOT NULL THEN
      v_today := ledger_spent_since(p_account, date_trunc('day', p_now, 'UTC'));
    END IF;
    IF w.monthly_limit_micros IS NOT NULL THEN
      v_month := ledger_spent_since(p_account, date_trunc('month', p_now, 'UTC'));
    END IF;
    IF v_mdaily IS NOT NULL THEN
      v_mtoday := ledger_member_spent_since(p_account, v_member, date_trunc('day', p_now, 'UTC'));
    END IF;
    IF v_mmonthly IS NOT NULL THEN
      v_mmonth := ledger_member_spent_since(p_account, v_member, date_trunc('month', p_now, 'UTC'));
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
    ELSIF v_mtoday + p_amount > v_mdaily THEN
      error := json_build_object('code', 'ORG_MEMBER_BUDGET_EXCEEDED',
        'message', 'The amount ' || v_amount || ' would take this member''s spend today above their daily limit ' || ledger_usd(v_mdaily) || '.',
        'details', json_build_object('limit', 'member_daily', 'user_id', v_member, 'limit_value', ledger_usd(v_mdaily), 'spent', ledger_usd(v_mtoday), 'amount', v_amount));
    ELSIF v_mmonth + p_amount > v_mmonthly THEN
      error := json_build_object('code', 'ORG_MEMBER_BUDGET_EXCEEDED',
        'message', 'The amount ' || v_amount || ' would take this member''s spend this month above their monthly limit ' || ledger_usd(v_mmonthly) || '.',
        'details', json_build_object('limit', 'member_monthly', 'user_id', v_member, 'limit_value', ledger_usd(v_mmonthly), 'spent', ledger_usd(v_mmonth), 'amount', v_amount));
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

-- As 0400's, passing p_by on.
CREATE FUNCTION ledger_place_hold_once(
  p_account uuid, p_kind text, p_ref text, p_amount bigint, p_description text, p_product text, p_provider text,
  p_expires timestamptz, p_now timestamptz, p_by text DEFAULT NULL,
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
  SELECT * INTO r FROM ledger_place_hold(p_account, p_kind, p_ref, p_amount, p_description, p_product, p_provider, p_expires, p_now, p_by);
  hold_id := r.hold_id;
  existing := false;
  available_after := r.available_after;
  recharge := r.recharge;
  error := r.error;
END;
$$;

-- The job's reservation counts against its submitter's member budget: as 0600's, with p_submitted_by
-- (the agent's subject) passed to ledger_place_hold.
CREATE OR REPLACE FUNCTION jobs_submit(
  p_id uuid, p_account uuid, p_key text, p_request_hash text, p_capability text, p_product text,
  p_request jsonb, p_max bigint, p_quoted bigint, p_quote jsonb, p_hold_expires timestamptz, p_submitted_by text, p_tags jsonb
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb;
  v_note text;
  v_owner text := p_account::text;
  v_key text := idempotency_hash(p_key);
  v_tags jsonb := COALESCE(p_tags, '{}'::jsonb);
  v_prior jobs%ROWTYPE;
  c record;
  h record;
BEGIN
  c := idempotency_claim(v_owner, 'jobs', v_key, p_request_hash, NULL, NULL, false);
  IF c.outcome = 'in_flight' THEN
    RETURN jsonb_build_object('outcome', 'in_flight');
  ELSIF c.outcome = 'reused' THEN
    RETURN jsonb_build_object('outcome', 'reused', 'info', jsonb_build_object('job_id', c.ref));
  ELSIF c.outcome = 'replay' THEN
    SELECT * INTO STRICT v_prior FROM jobs WHERE id = c.ref;
    RETURN jsonb_build_object('outcome', 'replayed', 'job', jobs_row_json(v_prior), 'transitions', jobs_transitions_json(v_prior.id));
  END IF;
  IF p_quoted > p_max THEN
    RETURN jsonb_build_object('outcome', 'price_above', 'error', json_build_object('code', 'PRICE_ABOVE_MAXIMUM',
      'message', 'The quoted price ' || ledger_usd(p_quoted) || ' is above max_total_price ' || ledger_usd(p_max) || '.',
      'details', json_build_object('quoted_price', ledger_usd(p_quoted), 'max_total_price', ledger_usd(p_max)))::text);
  END IF;
  h := ledger_place_hold(p_account, 'job', p_id::text, p_quoted, 'job ' || p_id::text || ' (' || p_capability || ')', p_product, NULL, p_hold_expires, now(), p_submitted_by);
  IF h.error IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'refused', 'error', h.error::text);
  END IF;
  v_note := 'price ' || ledger_usd(p_quoted);

  WITH j AS (
    INSERT INTO jobs (id, account_id, idempotency_key, request_hash, capability_id, product, request, max_total_price_micros,
                      quoted_price_micros, reserved_price_micros, quote, hold_id, status, submitted_by, tags)
    VALUES (p_id, p_account, p_key, p_request_hash, p_capability, p_product, p_request, p_max, p_quoted, p_quoted, p_quote, h.hold_id, 'queued', p_submitted_by, v_tags)
    RETURNING created_at, updated_at),
  g AS (
    INSERT INTO job_tags (job_id, account_id, key, value, created_at)
    SELECT p_id, p_account, t.key, t.value, j.created_at FROM j, jsonb_each_text(v_tags) t),
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
  PERFORM idempotency_record(v_owner, 'jobs', v_key, p_request_hash, p_id);
  RETURN v_out;
END;
$$;
