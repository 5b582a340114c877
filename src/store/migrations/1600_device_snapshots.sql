-- Issue 24: what each provider last reported about its backends (status, queue, native gates,
-- coupling, calibration), written by the snapshot refresher and served by the device directory
-- with source "provider". One row per provider backend; a refresh replaces the provider's rows.
CREATE TABLE device_snapshots (
  provider   text        NOT NULL,
  backend    text        NOT NULL,
  snapshot   jsonb       NOT NULL,
  fetched_at timestamptz NOT NULL,
  PRIMARY KEY (provider, backend)
);

-- The refresher's own state per provider: its backoff survives a restart, and readiness can say
-- when the provider last answered.
CREATE TABLE device_snapshot_refreshes (
  provider             text        PRIMARY KEY,
  last_success_at      timestamptz,
  last_failure_at      timestamptz,
  consecutive_failures integer     NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  last_error           text
);
