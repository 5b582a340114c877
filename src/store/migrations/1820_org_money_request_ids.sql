-- The request id of a job's reservation in the organization's audit log (issue #39 item 5;
-- docs/organizations.md#audit-log). The money trigger of 1811 takes the request id from the
-- transaction's `qrail.request_id` setting, which a batched submission (several requests in one
-- transaction) cannot set once for all. Each submission now sets it around its own jobs_submit
-- call, to the id of the POST /v1/jobs request that made it, and puts back what was there before,
-- so the hold's `money.hold` event carries its own request's id and nothing else inherits it.
CREATE FUNCTION jobs_submit_in_request(
  p_request_id text,
  p_id uuid, p_account uuid, p_key text, p_request_hash text, p_capability text, p_product text,
  p_request jsonb, p_max bigint, p_quoted bigint, p_quote jsonb, p_hold_expires timestamptz, p_submitted_by text, p_tags jsonb
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_prev text := coalesce(current_setting('qrail.request_id', true), '');
  v_out jsonb;
BEGIN
  PERFORM set_config('qrail.request_id', coalesce(p_request_id, ''), true);
  v_out := jobs_submit(p_id, p_account, p_key, p_request_hash, p_capability, p_product, p_request, p_max, p_quoted, p_quote, p_hold_expires, p_submitted_by, p_tags);
  PERFORM set_config('qrail.request_id', v_prev, true);
  RETURN v_out;
END;
$$;

-- As 0600's, with each item's request id.
CREATE FUNCTION jobs_submit_many_in_requests(
  p_id uuid[], p_account uuid[], p_key text[], p_request_hash text[], p_capability text[], p_product text[],
  p_request text[], p_max bigint[], p_quoted bigint[], p_quote text[], p_hold_expires timestamptz[], p_submitted_by text[], p_tags text[],
  p_request_id text[]
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb := '[]'::jsonb;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_id, 1), 0) LOOP
    v_out := v_out || jsonb_build_array(jobs_submit_in_request(p_request_id[i], p_id[i], p_account[i], p_key[i], p_request_hash[i], p_capability[i], p_product[i],
      p_request[i]::jsonb, p_max[i], p_quoted[i], p_quote[i]::jsonb, p_hold_expires[i], p_submitted_by[i], p_tags[i]::jsonb));
  END LOOP;
  RETURN v_out;
END;
$$;
