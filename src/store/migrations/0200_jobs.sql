-- Account Jobs (spec §4.1, DESIGN §4): agent credentials, the signing keys of the Jobs
-- token issuer, prepaid jobs and the history of their transitions.

-- Revocable machine credentials. Only a SHA-256 of the secret is kept; the secret is shown once.
CREATE TABLE agent_credentials (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  created_by uuid REFERENCES users(id),
  name text NOT NULL,
  scopes text[] NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  -- last characters of the secret, so owners can tell credentials apart
  secret_hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX agent_credentials_account_idx ON agent_credentials (account_id, created_at);

-- Keys the built-in issuer signs Jobs access tokens with (ES256); shared by every process.
CREATE TABLE jobs_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  private_jwk jsonb NOT NULL,
  public_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  idempotency_key text NOT NULL,
  -- SHA-256 of the canonical {capability_id, request, max_total_price}
  request_hash text NOT NULL,
  capability_id text NOT NULL,
  product text,
  request jsonb NOT NULL,
  max_total_price_micros bigint NOT NULL CHECK (max_total_price_micros >= 0),
  quoted_price_micros bigint NOT NULL CHECK (quoted_price_micros >= 0),
  reserved_price_micros bigint NOT NULL CHECK (reserved_price_micros >= 0),
  quote jsonb NOT NULL,
  hold_id uuid REFERENCES billing_holds(id),
  status text NOT NULL CHECK (status IN ('quoted', 'reserved', 'queued', 'running', 'result_saved', 'completed', 'failed')),
  result jsonb,
  receipt jsonb,
  receipt_reference text UNIQUE,
  error_code text,
  error_message text,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_expires_at timestamptz,
  -- who submitted it: credential id, or the JWT subject
  submitted_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (account_id, idempotency_key),
  CHECK (reserved_price_micros <= max_total_price_micros),
  CHECK (status <> 'completed' OR (receipt IS NOT NULL AND receipt_reference IS NOT NULL AND result IS NOT NULL)),
  CHECK (status <> 'failed' OR error_code IS NOT NULL)
);
CREATE INDEX jobs_account_list_idx ON jobs (account_id, created_at DESC, id DESC);
CREATE INDEX jobs_queued_idx ON jobs (created_at) WHERE status = 'queued';
CREATE INDEX jobs_leased_idx ON jobs (lease_expires_at) WHERE status IN ('running', 'result_saved');

-- Every transition with its time (DESIGN §4), append-only.
CREATE TABLE job_transitions (
  id bigserial PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES jobs(id),
  from_status text,
  to_status text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  worker text,
  note text
);
CREATE INDEX job_transitions_job_idx ON job_transitions (job_id, id);
