-- Hardware quotes and held jobs, processor events and objects, auto-recharge attempts.

-- Available balance right after a capture, so that a repeated capture returns the first outcome.
ALTER TABLE billing_holds ADD COLUMN capture_balance_after_micros bigint;

CREATE TABLE billing_hardware_quotes (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  provider text NOT NULL,
  device text NOT NULL,
  shots integer NOT NULL CHECK (shots > 0),
  tasks integer NOT NULL CHECK (tasks > 0),
  per_task_micros bigint NOT NULL CHECK (per_task_micros >= 0),
  per_shot_micros bigint NOT NULL CHECK (per_shot_micros >= 0),
  total_micros bigint NOT NULL CHECK (total_micros >= 0),
  valid_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_hardware_quotes_account_idx ON billing_hardware_quotes (account_id, created_at);

-- A held job: funds reserved for a hardware run that execution continues later.
-- held → continued (execution took it; it captures or releases the hold) | released | expired.
CREATE TABLE billing_held_jobs (
  job_id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  quote_id uuid NOT NULL UNIQUE REFERENCES billing_hardware_quotes(id),
  hold_id uuid NOT NULL UNIQUE REFERENCES billing_holds(id),
  provider text NOT NULL,
  device text NOT NULL,
  shots integer NOT NULL,
  tasks integer NOT NULL,
  amount_micros bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('held', 'continued', 'released', 'expired')),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_held_jobs_account_idx ON billing_held_jobs (account_id, created_at);

-- Webhook events applied, deduped by the processor's event id (inserted in the same
-- transaction as the event's effect).
CREATE TABLE billing_processor_events (
  event_id text PRIMARY KEY,
  type text NOT NULL,
  object_id text,
  event_created timestamptz NOT NULL,
  outcome text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Checkout sessions and payment intents this service created, to map them back to accounts.
CREATE TABLE billing_processor_payments (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  kind text NOT NULL CHECK (kind IN ('checkout_session', 'payment_intent')),
  purpose text NOT NULL CHECK (purpose IN ('checkout', 'topup', 'auto_recharge')),
  amount_micros bigint NOT NULL CHECK (amount_micros > 0),
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_processor_payments_account_idx ON billing_processor_payments (account_id, created_at);

CREATE TABLE billing_auto_recharge_attempts (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  trigger text NOT NULL CHECK (trigger IN ('threshold', 'test')),
  amount_micros bigint NOT NULL CHECK (amount_micros >= 0),
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped')),
  payment_intent_id text,
  failure_code text,
  failure_message text,
  available_before_micros bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX billing_auto_recharge_attempts_account_idx ON billing_auto_recharge_attempts (account_id, created_at);
-- At most one attempt in flight per account.
CREATE UNIQUE INDEX billing_auto_recharge_one_pending ON billing_auto_recharge_attempts (account_id) WHERE status = 'pending';

-- The embedded sandbox processor keeps its objects here (customers, intents, sessions, events).
CREATE TABLE billing_sandbox_objects (
  id text PRIMARY KEY,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_sandbox_objects_type_idx ON billing_sandbox_objects (type, created_at);
