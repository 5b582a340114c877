-- Objects an Idempotency-Key run created (docs/decisions/foundation-idempotency-crash-windows.md).
--
-- A run that made its object and died before its response was stored is retried under the same
-- run_token (0020). Objects that have no natural key of their own — a hold (one per quote, but a
-- second hold on the quote is a 409) and an agent credential (nothing unique at all) — record
-- here which object the run made, in the transaction that makes it, so the retry answers that
-- object instead of refusing or creating a second one. kind says which table object_id names.
-- Rows are purged with the keys: a run token never outlives its key's 24 h retention.
CREATE TABLE idempotency_effects (
  run_token uuid NOT NULL,
  kind text NOT NULL,
  object_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_token, kind)
);
CREATE INDEX idempotency_effects_created_idx ON idempotency_effects (created_at);
