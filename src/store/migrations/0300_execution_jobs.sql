-- Execution jobs (issue 9, DESIGN §8): simulator runs and hardware runs on provider-one and
-- provider-two. Durable rows run by the execution worker under a lease; a hardware job's id
-- is the held job's id from billing (billing_held_jobs.job_id) and it settles that hold.

CREATE TABLE execution_jobs (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  -- the caller's token: the same token never runs or charges twice (per account)
  client_token text NOT NULL,
  -- SHA-256 of the canonical request; another request under the same token → 409
  request_hash text NOT NULL,
  provider text NOT NULL,
  device text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('simulator', 'hardware')),
  driver text NOT NULL CHECK (driver IN ('simulator', 'emulated', 'remote')),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  shots integer NOT NULL CHECK (shots > 0),
  -- drawn at submission, so a run repeated after a crash gives the same counts
  seed bigint NOT NULL,
  circuit jsonb NOT NULL,
  translation jsonb,
  hold_id uuid REFERENCES billing_holds(id),
  estimated_micros bigint NOT NULL DEFAULT 0 CHECK (estimated_micros >= 0),
  actual_micros bigint CHECK (actual_micros >= 0),
  result jsonb,
  error_code text,
  error_message text,
  -- remote driver: the provider's job id, stored before polling; submission is never repeated
  remote_job_id text,
  remote_submit_started_at timestamptz,
  remote_failures integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at timestamptz,
  finished_at timestamptz,
  UNIQUE (account_id, client_token),
  CHECK (status <> 'completed' OR result IS NOT NULL),
  CHECK (status <> 'failed' OR error_code IS NOT NULL),
  CHECK (kind = 'simulator' OR hold_id IS NOT NULL)
);
CREATE INDEX execution_jobs_claim_idx ON execution_jobs (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX execution_jobs_device_idx ON execution_jobs (device, created_at) WHERE status IN ('queued', 'running');
CREATE INDEX execution_jobs_account_idx ON execution_jobs (account_id, created_at DESC);

-- Every transition with its time, append-only.
CREATE TABLE execution_job_events (
  id bigserial PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES execution_jobs(id),
  from_status text,
  to_status text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  worker text,
  note text
);
CREATE INDEX execution_job_events_job_idx ON execution_job_events (job_id, id);

-- Operator overrides of a device's status (maintenance windows, outages), shared by every process.
CREATE TABLE execution_device_status (
  device text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('online', 'offline', 'maintenance')),
  note text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
