-- Execution jobs on the one queue (src/store/queue/pg-queue.ts): the claim takes a running job
-- whose lease expired (a dead worker's run, a remote job due for its next poll) by oldest
-- lease first, else the oldest queued job, each through an ordered probe of its own partial
-- index, as on `jobs` (jobs_leased_idx, jobs_queued_idx), so a claim costs the same at any backlog.
CREATE INDEX execution_jobs_queued_idx ON execution_jobs (created_at) WHERE status = 'queued';
CREATE INDEX execution_jobs_leased_idx ON execution_jobs (lease_expires_at) WHERE status = 'running';
-- The previous claim's index (queued or running, by creation time): nothing reads it any more.
DROP INDEX IF EXISTS execution_jobs_claim_idx;
