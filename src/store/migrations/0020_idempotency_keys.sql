-- Idempotency-Key on platform POSTs (docs/decisions/foundation-idempotency-keys.md).
--
-- One row per (owner, key): owner is the account id for session routes, 'operator' for the
-- operator token. The key itself is stored only as its SHA-256 (key_hash): the stored response,
-- which can hold a credential's secret, is encrypted under a key derived from the raw
-- Idempotency-Key, so a reader of this table alone cannot replay it.
--
-- state: in_progress (a request holds the lease until locked_until), done (response stored),
-- failed (the request ended in a 5xx: nothing stored, the key may be retried).
-- run_token names the run for the domain's own idempotency (e.g. the processor's key of a
-- payment intent): a retry that takes over a lapsed lease or a failed run of the same request
-- reuses it, so a crash between the money effect and the stored response cannot charge twice.
CREATE TABLE idempotency_keys (
  owner text NOT NULL,
  key_hash text NOT NULL,
  request_hash text NOT NULL,
  route text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'done', 'failed')),
  run_token uuid NOT NULL,
  locked_until timestamptz NOT NULL,
  status_code integer,
  response text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner, key_hash)
);
-- The periodic purge of rows older than 24 h.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
