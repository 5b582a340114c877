-- Issue 21 (items 1–3): cancel, filtered lists and tags, for Account Jobs and execution jobs
-- (docs/jobs.md#canceling, #listing-and-pagination, #tags; docs/execution.md).

-- Cancel. A running item asked to stop: set once by the cancel request; the worker holding the
-- item sees it at its next heartbeat (at once in the process that took the request) and ends it
-- failed / CANCELED. An item not yet running is ended at once instead and never gets the flag.
ALTER TABLE jobs ADD COLUMN cancel_requested_at timestamptz;
ALTER TABLE execution_jobs ADD COLUMN cancel_requested_at timestamptz;

-- Tags: at most 16 keys to short strings (the API's schema bounds them; the CHECKs are the
-- backstop). On the job for reading it back; in job_tags, one row per tag, for the list filter.
ALTER TABLE jobs ADD COLUMN tags jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(tags) = 'object');

-- `tag=key:value` lists through an ordered probe of job_tags_list_idx: the newest jobs with the
-- tag first, so a page reads as many rows as it returns however many jobs carry the tag (a GIN
-- index on jobs.tags finds them, but unordered: every match read and sorted per page). More tags
-- in one filter are checked on the primary key, one probe per candidate job.
CREATE TABLE job_tags (
  job_id uuid NOT NULL REFERENCES jobs(id),
  account_id uuid NOT NULL,
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 64),
  value text NOT NULL CHECK (length(value) <= 128),
  -- the job's created_at: the list's order
  created_at timestamptz NOT NULL,
  PRIMARY KEY (job_id, key)
);
CREATE INDEX job_tags_list_idx ON job_tags (account_id, key, value, created_at DESC, job_id DESC);

-- Filtered lists, newest first with the (created_at, id) keyset: one index per filter, each an
-- ordered probe that stops after the page (jobs_account_list_idx serves no filter, the creation
-- time range and idempotency_key's own path).
CREATE INDEX jobs_account_status_idx ON jobs (account_id, status, created_at DESC, id DESC);
CREATE INDEX jobs_account_capability_idx ON jobs (account_id, capability_id, created_at DESC, id DESC);

CREATE INDEX execution_jobs_account_list_idx ON execution_jobs (account_id, created_at DESC, id DESC);
CREATE INDEX execution_jobs_account_status_idx ON execution_jobs (account_id, status, created_at DESC, id DESC);
CREATE INDEX execution_jobs_account_provider_idx ON execution_jobs (account_id, provider, created_at DESC, id DESC);
CREATE INDEX execution_jobs_account_device_idx ON execution_jobs (account_id, device, created_at DESC, id DESC);
-- Replaced by execution_jobs_account_list_idx (the same order, with the id the keyset needs).
DROP INDEX execution_jobs_account_idx;

-- The submission takes the tags (p_tags: a JSON object of strings, or NULL for none): stored on
-- the job and in job_tags by the same statement. Otherwise as 0501 (and 0401 for the batch).
DROP FUNCTION jobs_submit_many(uuid[], uuid[], text[], text[], text[], text[], text[], bigint[], bigint[], text[], timestamptz[], text[]);
DROP FUNCTION jobs_submit(uuid, uuid, text, text, text, text, jsonb, bigint, bigint, jsonb, timestamptz, text);

CREATE FUNCTION jobs_submit(
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
  h := ledger_place_hold(p_account, 'job', p_id::text, p_quoted, 'job ' || p_id::text || ' (' || p_capability || ')', p_product, NULL, p_hold_expires, now());
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

-- As 0401's: jobs_submit for each item, in the order given, in the statement's one transaction.
CREATE FUNCTION jobs_submit_many(
  p_id uuid[], p_account uuid[], p_key text[], p_request_hash text[], p_capability text[], p_product text[],
  p_request text[], p_max bigint[], p_quoted bigint[], p_quote text[], p_hold_expires timestamptz[], p_submitted_by text[], p_tags text[]
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb := '[]'::jsonb;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_id, 1), 0) LOOP
    v_out := v_out || jsonb_build_array(jobs_submit(p_id[i], p_account[i], p_key[i], p_request_hash[i], p_capability[i], p_product[i],
      p_request[i]::jsonb, p_max[i], p_quoted[i], p_quote[i]::jsonb, p_hold_expires[i], p_submitted_by[i], p_tags[i]::jsonb));
  END LOOP;
  RETURN v_out;
END;
$$;
