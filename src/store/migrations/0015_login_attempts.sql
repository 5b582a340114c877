-- Login attempts counted per email and per client address in one atomic upsert, taken
-- before the password is checked (issue #17): a burst of concurrent guesses can no longer
-- all read "under the limit" from a log of past failures. Replaces login_failures.
CREATE TABLE login_attempts (
  key text PRIMARY KEY,
  attempts integer NOT NULL,
  window_started_at timestamptz NOT NULL
);
CREATE INDEX login_attempts_window_idx ON login_attempts (window_started_at);
DROP TABLE login_failures;
