-- The account's ledger, newest first, for GET /v1/billing/ledger: a keyset over (created_at, id)
-- per account, and the entries of each listed transfer found by transfer without a scan.
CREATE INDEX IF NOT EXISTS ledger_transfers_account_listing_idx ON ledger_transfers (account_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS ledger_entries_transfer_idx ON ledger_entries (transfer_id);
