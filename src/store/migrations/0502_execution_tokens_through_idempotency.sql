-- Execution client_token through the one mechanism (0500; docs/decisions/foundation-idempotency-one-mechanism.md).
--
-- A token is a key of scope 'execution' (owner the account, ref the execution job), claimed
-- and recorded in the transaction that inserts the job (src/store/execution/execution-repository.ts).
-- Existing tokens are copied first, so each keeps naming its job and request; the job's own
-- UNIQUE (account_id, client_token) then goes (client_token stays on the row, for reading).

INSERT INTO idempotency_keys (owner, scope, key_hash, request_hash, state, ref, created_at)
SELECT account_id::text, 'execution', idempotency_hash(client_token), request_hash, 'done', id, created_at
  FROM execution_jobs;

ALTER TABLE execution_jobs DROP CONSTRAINT execution_jobs_account_id_client_token_key;
