-- Billing ledger (DESIGN §3): append-only double-entry transfers, two-phase holds,
-- and one wallet row per account that caches the account's balances and is the lock
-- every money movement of that account takes (SELECT … FOR UPDATE).

-- Wallet: cached balances (recomputable from ledger_entries), spend controls and
-- auto-recharge settings of one account.
CREATE TABLE billing_wallets (
  account_id uuid PRIMARY KEY REFERENCES accounts(id),
  currency text NOT NULL DEFAULT 'USD',
  available_micros bigint NOT NULL DEFAULT 0 CHECK (available_micros >= 0),
  held_micros bigint NOT NULL DEFAULT 0 CHECK (held_micros >= 0),
  -- spend controls (NULL = no limit)
  daily_limit_micros bigint CHECK (daily_limit_micros >= 0),
  monthly_limit_micros bigint CHECK (monthly_limit_micros >= 0),
  per_job_max_micros bigint CHECK (per_job_max_micros >= 0),
  hardware_allowed boolean NOT NULL DEFAULT true,
  hold_expiry_seconds integer NOT NULL DEFAULT 3600 CHECK (hold_expiry_seconds > 0),
  -- auto-recharge
  ar_enabled boolean NOT NULL DEFAULT false,
  ar_threshold_micros bigint CHECK (ar_threshold_micros >= 0),
  ar_recharge_to_micros bigint CHECK (ar_recharge_to_micros >= 0),
  ar_monthly_cap_micros bigint CHECK (ar_monthly_cap_micros >= 0),
  ar_payment_method text,
  ar_consecutive_failures integer NOT NULL DEFAULT 0,
  ar_paused_at timestamptz,
  ar_pause_reason text,
  -- set in the debit's own transaction when available fell below the threshold (outbox)
  ar_requested_at timestamptz,
  -- processor profile
  processor_customer_id text,
  default_payment_method text,
  default_payment_method_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_wallets_ar_requested_idx ON billing_wallets (ar_requested_at) WHERE ar_requested_at IS NOT NULL;
CREATE UNIQUE INDEX billing_wallets_customer_key ON billing_wallets (processor_customer_id) WHERE processor_customer_id IS NOT NULL;

-- Two-phase reservation. pending → captured | released | expired, exactly once.
CREATE TABLE billing_holds (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  kind text NOT NULL CHECK (kind IN ('job', 'hardware')),
  ref_id text NOT NULL,
  description text NOT NULL,
  product text,
  provider text,
  amount_micros bigint NOT NULL CHECK (amount_micros >= 0),
  status text NOT NULL CHECK (status IN ('pending', 'captured', 'released', 'expired')),
  captured_micros bigint NOT NULL DEFAULT 0 CHECK (captured_micros >= 0),
  released_micros bigint NOT NULL DEFAULT 0 CHECK (released_micros >= 0),
  refunded_micros bigint NOT NULL DEFAULT 0 CHECK (refunded_micros >= 0),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  resolution_reason text,
  CHECK (captured_micros + released_micros <= amount_micros),
  CHECK (refunded_micros <= captured_micros),
  UNIQUE (kind, ref_id)
);
CREATE INDEX billing_holds_account_idx ON billing_holds (account_id, created_at);
CREATE INDEX billing_holds_expiry_idx ON billing_holds (expires_at) WHERE status = 'pending';

-- One row per money movement between two ledger accounts.
CREATE TABLE ledger_transfers (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('grant', 'topup', 'hold', 'capture', 'release', 'expire', 'refund', 'adjustment')),
  from_account text NOT NULL,
  to_account text NOT NULL,
  amount_micros bigint NOT NULL CHECK (amount_micros >= 0),
  account_id uuid REFERENCES accounts(id),
  hold_id uuid REFERENCES billing_holds(id),
  description text NOT NULL,
  -- unique external reference: checkout session, payment intent, grant idempotency key
  idempotency_key text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (from_account <> to_account)
);
CREATE INDEX ledger_transfers_account_idx ON ledger_transfers (account_id, created_at);
CREATE INDEX ledger_transfers_hold_idx ON ledger_transfers (hold_id) WHERE hold_id IS NOT NULL;
-- Exactly one capture and at most one release per hold, enforced by the database.
CREATE UNIQUE INDEX ledger_transfers_one_capture ON ledger_transfers (hold_id) WHERE kind = 'capture';
CREATE UNIQUE INDEX ledger_transfers_one_release ON ledger_transfers (hold_id) WHERE kind IN ('release', 'expire');
CREATE UNIQUE INDEX ledger_transfers_one_hold ON ledger_transfers (hold_id) WHERE kind = 'hold';

-- Two entries per transfer: -amount on the source, +amount on the destination.
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  transfer_id uuid NOT NULL REFERENCES ledger_transfers(id),
  ledger_account text NOT NULL,
  account_id uuid,
  amount_micros bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (ledger_account);
CREATE INDEX ledger_entries_owner_idx ON ledger_entries (account_id, created_at);

-- Append-only: the ledger is never edited, only added to.
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger tables are append-only (% on %)', TG_OP, TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER ledger_transfers_append_only BEFORE UPDATE OR DELETE ON ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
