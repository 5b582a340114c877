-- How far a running execution job has got (issue 22 item 7): {fraction (0–1), phase, at}, written
-- by the process running it at most once a second, only while the job is running;
-- shown in the job view while it runs. Null before the first report and for remote runs.
ALTER TABLE execution_jobs ADD COLUMN progress jsonb CHECK (progress IS NULL OR jsonb_typeof(progress) = 'object');
