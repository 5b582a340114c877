-- The open (queued or running) optimize jobs of an account, counted at every submission to
-- bound how many one account may have at once (src/optimize-jobs/optimize-jobs-service.ts).
CREATE INDEX optimize_jobs_open_idx ON optimize_jobs (account_id) WHERE status IN ('queued', 'running');
