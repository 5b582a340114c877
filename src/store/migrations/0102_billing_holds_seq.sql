-- Insertion order of holds, for keyset pagination of GET /v1/billing/jobs.
ALTER TABLE billing_holds ADD COLUMN seq bigserial;
CREATE INDEX billing_holds_account_seq_idx ON billing_holds (account_id, seq);
