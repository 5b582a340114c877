-- What a run computes beyond counts: the points of a parameter sweep and the result types asked
-- for (src/execution/workload-request.ts). Stored with the job so a run resumed after its owner
-- died computes the same thing. Null for a plain counts run (every row before this migration).
ALTER TABLE execution_jobs ADD COLUMN run_options jsonb;
