-- Holds for N tasks (issue 22 item 4, docs/execution.md#holds-for-n-tasks): a held job placed for
-- a quote of `tasks: N` is continued with up to N circuits, in one or several continuations.
-- tasks_used counts the tasks taken so far; the CHECK is the database's own guarantee that no
-- interleaving of continuations takes more than N (they also serialize on the wallet and
-- held-job row locks). A held job stays `held` while tasks remain and becomes `continued` with
-- the last one; its hold_id then names the hold of the tasks not yet taken (the remainder).
ALTER TABLE billing_held_jobs ADD COLUMN tasks_used integer NOT NULL DEFAULT 0;
-- Held jobs continued before this migration ran one task and released the rest: used up.
UPDATE billing_held_jobs SET tasks_used = tasks WHERE status = 'continued';
ALTER TABLE billing_held_jobs ADD CONSTRAINT billing_held_jobs_tasks_used_bounded CHECK (tasks_used >= 0 AND tasks_used <= tasks);
