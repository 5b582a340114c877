-- Group commit of job submissions (docs/decisions/jobs-submission-group-commit.md).
--
-- jobs_submit_many runs jobs_submit (0205) for each item, in the order given, in the one
-- transaction of the statement that calls it, and returns the outcomes in that order. The
-- caller (src/store/repositories/group-commit.ts, jobs-submission.ts) sends the submissions that arrived while
-- earlier ones were in the database, ordered by account: several submissions then share one
-- round trip, one commit and one WAL flush. Each item sees the items before it (an account's
-- wallet is debited item by item, so refusals are the same as one after another; a key seen
-- earlier in the batch is replayed, as it would be once the first had committed).
--
-- Wallet rows are locked in account order, as every batch orders its items the same way, so
-- two batches cannot wait for each other; a single submission locks one wallet only.
-- Refusals are outcomes, not errors: an error (none is expected) rolls the whole batch back,
-- and the caller then submits each item on its own.

CREATE FUNCTION jobs_submit_many(
  p_id uuid[], p_account uuid[], p_key text[], p_request_hash text[], p_capability text[], p_product text[],
  p_request text[], p_max bigint[], p_quoted bigint[], p_quote text[], p_hold_expires timestamptz[],
  p_submitted_by text[], p_price_note text[]
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_out jsonb := '[]'::jsonb;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_id, 1), 0) LOOP
    v_out := v_out || jsonb_build_array(jobs_submit(p_id[i], p_account[i], p_key[i], p_request_hash[i], p_capability[i], p_product[i],
      p_request[i]::jsonb, p_max[i], p_quoted[i], p_quote[i]::jsonb, p_hold_expires[i], p_submitted_by[i], p_price_note[i]));
  END LOOP;
  RETURN v_out;
END;
$$;
