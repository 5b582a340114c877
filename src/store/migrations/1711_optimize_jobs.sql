-- Async optimize (issue 22 item 7; docs/decisions/optimize-jobs-table.md): POST /v1/circuits/optimize
-- with "async": true stores an optimize job, run by a worker on the one queue
-- (src/store/queue/pg-queue.ts) under a lease. Free work (no hold, no price): only the queue
-- columns, the request, the result and the progress. `hold_id` is always null; the queue's claim
-- reads it like the other tables'.
CREATE TABLE optimize_jobs (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'canceled')),
  -- the validated request as the compute task takes it (circuit in wire format 0.2, profile, target, output options)
  request jsonb NOT NULL CHECK (jsonb_typeof(request) = 'object'),
  -- the same `data` the synchronous optimize answers
  result jsonb,
  error_code text,
  error_message text,
  -- {fraction (0–1), phase, at} while running, written at most once a second by the process running it
  progress jsonb CHECK (progress IS NULL OR jsonb_typeof(progress) = 'object'),
  hold_id uuid CHECK (hold_id IS NULL),
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_expires_at timestamptz,
  cancel_requested_at timestamptz,
  traceparent text CHECK (traceparent IS NULL OR length(traceparent) <= 64),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at timestamptz,
  finished_at timestamptz,
  CHECK (status <> 'completed' OR result IS NOT NULL),
  CHECK (status <> 'failed' OR error_code IS NOT NULL)
);
-- The one queue's two ordered probes (as jobs_queued_idx / jobs_leased_idx), and an account's listing.
CREATE INDEX optimize_jobs_queued_idx ON optimize_jobs (created_at) WHERE status = 'queued';
CREATE INDEX optimize_jobs_leased_idx ON optimize_jobs (lease_expires_at) WHERE status = 'running';
CREATE INDEX optimize_jobs_account_idx ON optimize_jobs (account_id, created_at DESC, id DESC);

-- Every transition with its time, append-only (the queue's transitions table shape).
CREATE TABLE optimize_job_events (
  id bigserial PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES optimize_jobs(id),
  from_status text,
  to_status text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  worker text,
  note text
);
CREATE INDEX optimize_job_events_job_idx ON optimize_job_events (job_id, id);
