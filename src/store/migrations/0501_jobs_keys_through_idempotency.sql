-- Account Jobs' idempotency_key through the one mechanism (0500; docs/decisions/foundation-idempotency-one-mechanism.md).
--
-- jobs_submit claims the key with idempotency_claim (scope 'jobs', owner the account, no lease:
-- a concurrent submission with the key is 'in_flight', as jobs_key_outcome's advisory lock
-- made it) and records it with idempotency_record in the same statement as the job, so a
-- refused submission still leaves no key. Same outcomes, same order of checks as 0401.
-- The keys of job_idempotency_keys (0205) are copied first, so every existing key keeps
-- naming its job. Its primary-key-only lookup (why 0205 gave the keys a table of their own)
-- holds in idempotency_keys too: its only other index is partial on the header's scope.

INSERT INTO idempotency_keys (owner, scope, key_hash, request_hash, state, ref, created_at)
SELECT k.account_id::text, 'jobs', idempotency_hash(k.idempotency_key), j.request_hash, 'done', k.job_id, j.created_at
  FROM job_idempotency_keys k JOIN jobs j ON j.id = k.job_id;

CREATE OR REPLACE FUNCTION jobs_submit(
  p_id uuid, p_account uuid, p_key text, p_request_hash text, p_capability text, p_product text,
  p_request jsonb, p_max bigint, p_quoted bigint, p_quote jsonb, p_hold_expires timestamptz, p_submitted_by text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb;
  v_note text;
  v_owner text := p_account::text;
  v_key text := idempotency_hash(p_key);
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

DROP FUNCTION jobs_key_outcome(uuid, text, text);
DROP TABLE job_idempotency_keys;
