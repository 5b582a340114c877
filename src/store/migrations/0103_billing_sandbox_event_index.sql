-- The sandbox looks up its undelivered events on every action; keep that lookup small.
CREATE INDEX billing_sandbox_undelivered_idx ON billing_sandbox_objects (created_at)
  WHERE type = 'event' AND NOT COALESCE((data->>'delivered')::boolean, false);
