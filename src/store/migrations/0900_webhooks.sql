-- Issue 21 item 5: outbound webhooks (docs/webhooks.md, docs/decisions/webhooks-outbox.md).
-- State changes write their event into the outbox (webhook_events) from AFTER triggers, so the
-- event commits or rolls back with the change itself; a dispatcher numbers the committed events
-- per account and fans them out to the endpoints (webhook_deliveries); the delivery worker sends
-- them, in sequence order per endpoint, and logs every attempt.

-- An account's endpoints. The signing secret is kept as is: it must be recoverable to sign
-- (as jobs_signing_keys' private keys are), and it is shown to the owner only once.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts(id),
  url text NOT NULL CHECK (length(url) <= 2048),
  description text,
  -- the event types it receives; '*' = every type
  event_types text[] NOT NULL CHECK (cardinality(event_types) BETWEEN 1 AND 32),
  secret text NOT NULL,
  status text NOT NULL CHECK (status IN ('enabled', 'disabled', 'deleted')),
  disabled_reason text,
  disabled_at timestamptz,
  -- the first failed attempt since the last success (NULL while healthy): drives auto-disable
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at DESC, id DESC) WHERE status <> 'deleted';
-- The triggers' "does this account listen at all" probe.
CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (account_id) WHERE status = 'enabled';

-- The outbox. `pos` is the insertion order the dispatcher reads in; `sequence` is the
-- per-account number it assigns once the row is committed (so numbers follow commit order).
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  pos bigserial NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts(id),
  type text NOT NULL,
  data jsonb NOT NULL,
  sequence bigint,
  -- whole milliseconds, as on the wire: a list cursor made from it finds the row again
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  UNIQUE (account_id, sequence)
);
CREATE INDEX webhook_events_unsequenced_idx ON webhook_events (pos) WHERE sequence IS NULL;
CREATE INDEX webhook_events_account_list_idx ON webhook_events (account_id, created_at DESC, id DESC);

CREATE TABLE webhook_account_sequences (
  account_id uuid PRIMARY KEY REFERENCES accounts(id),
  last_sequence bigint NOT NULL
);

-- One dispatcher at a time (row locked with SKIP LOCKED): numbering is then gap-free and in
-- the order the dispatcher saw the events committed.
CREATE TABLE webhook_dispatch_lock (id integer PRIMARY KEY CHECK (id = 1));
INSERT INTO webhook_dispatch_lock VALUES (1);

-- One event for one endpoint. `manual` rows are redeliveries the owner asked for: they are sent
-- beside the ordered stream and never hold it up.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
  event_id uuid NOT NULL REFERENCES webhook_events(id),
  sequence bigint NOT NULL,
  manual boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  first_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  completed_at timestamptz
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (endpoint_id, event_id) WHERE NOT manual;
CREATE INDEX webhook_deliveries_head_idx ON webhook_deliveries (endpoint_id, sequence) WHERE status = 'pending' AND NOT manual;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_list_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- The delivery log: every attempt with its outcome (status code or transport error) and a short
-- excerpt of the response body (never more).
CREATE TABLE webhook_delivery_attempts (
  id bigserial PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id),
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  response_excerpt text CHECK (length(response_excerpt) <= 512)
);
CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, id);

-- Money on the wire: 6-decimal USD strings (DESIGN §2).
CREATE FUNCTION webhook_usd(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN v IS NULL THEN NULL
              ELSE (CASE WHEN v < 0 THEN '-' ELSE '' END) || (abs(v) / 1000000)::text || '.' || lpad((abs(v) % 1000000)::text, 6, '0') END
$$;

-- Writes one event into the outbox when the account has an enabled endpoint (accounts without
-- webhooks pay one index probe and write nothing).
CREATE FUNCTION webhook_emit(p_account uuid, p_type text, p_data jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_endpoints WHERE account_id = p_account AND status = 'enabled') THEN
    INSERT INTO webhook_events (account_id, type, data) VALUES (p_account, p_type, p_data);
  END IF;
END;
$$;

-- Account Jobs: job.queued, job.running, job.completed, job.failed (quoted, reserved and
-- result_saved are internal steps).
CREATE FUNCTION webhook_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IN ('queued', 'running', 'completed', 'failed') THEN
    PERFORM webhook_emit(NEW.account_id, 'job.' || NEW.status, jsonb_build_object(
      'job_id', NEW.id, 'capability_id', NEW.capability_id, 'status', NEW.status,
      'previous_status', CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END,
      'tags', NEW.tags, 'quoted_price', webhook_usd(NEW.quoted_price_micros),
      'receipt_reference', NEW.receipt_reference, 'amount_captured', NEW.receipt->>'amount_captured',
      'error_code', NEW.error_code, 'error_message', NEW.error_message));
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER jobs_webhook_insert AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION webhook_jobs_trigger();
CREATE TRIGGER jobs_webhook_update AFTER UPDATE OF status ON jobs FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION webhook_jobs_trigger();

-- Execution jobs: execution_job.queued, .running, .completed, .failed.
CREATE FUNCTION webhook_execution_jobs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(NEW.account_id, 'execution_job.' || NEW.status, jsonb_build_object(
    'job_id', NEW.id, 'provider', NEW.provider, 'device', NEW.device, 'kind', NEW.kind, 'shots', NEW.shots,
    'status', NEW.status, 'previous_status', CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END,
    'actual_price', webhook_usd(NEW.actual_micros), 'error_code', NEW.error_code, 'error_message', NEW.error_message));
  RETURN NULL;
END;
$$;
CREATE TRIGGER execution_jobs_webhook_insert AFTER INSERT ON execution_jobs FOR EACH ROW EXECUTE FUNCTION webhook_execution_jobs_trigger();
CREATE TRIGGER execution_jobs_webhook_update AFTER UPDATE OF status ON execution_jobs FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION webhook_execution_jobs_trigger();

-- Holds: hold.expired when a hold was never captured nor released before its expiry.
CREATE FUNCTION webhook_holds_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(NEW.account_id, 'hold.expired', jsonb_build_object(
    'hold_id', NEW.id, 'kind', NEW.kind, 'ref_id', NEW.ref_id, 'description', NEW.description,
    'amount', webhook_usd(NEW.amount_micros), 'released', webhook_usd(NEW.released_micros), 'expires_at', NEW.expires_at));
  RETURN NULL;
END;
$$;
CREATE TRIGGER billing_holds_webhook_expired AFTER UPDATE OF status ON billing_holds FOR EACH ROW
  WHEN (NEW.status = 'expired' AND OLD.status <> 'expired') EXECUTE FUNCTION webhook_holds_trigger();

-- Low balance: once per downward crossing of the threshold (the auto-recharge threshold when one
-- is set, else 1.000000 USD); it re-arms when the balance is back at or above it.
CREATE FUNCTION webhook_low_balance_threshold(ar_threshold bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT COALESCE(ar_threshold, 1000000)
$$;
CREATE FUNCTION webhook_wallet_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.available_micros < webhook_low_balance_threshold(NEW.ar_threshold_micros)
     AND OLD.available_micros >= webhook_low_balance_threshold(NEW.ar_threshold_micros) THEN
    PERFORM webhook_emit(NEW.account_id, 'wallet.low_balance', jsonb_build_object(
      'available', webhook_usd(NEW.available_micros), 'held', webhook_usd(NEW.held_micros),
      'threshold', webhook_usd(webhook_low_balance_threshold(NEW.ar_threshold_micros)), 'auto_recharge_enabled', NEW.ar_enabled));
  END IF;
  IF OLD.ar_paused_at IS NULL AND NEW.ar_paused_at IS NOT NULL THEN
    PERFORM webhook_emit(NEW.account_id, 'auto_recharge.paused', jsonb_build_object(
      'reason', NEW.ar_pause_reason, 'consecutive_failures', NEW.ar_consecutive_failures));
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER billing_wallets_webhook AFTER UPDATE OF available_micros, ar_paused_at ON billing_wallets FOR EACH ROW
  WHEN (NEW.available_micros < OLD.available_micros OR (OLD.ar_paused_at IS NULL AND NEW.ar_paused_at IS NOT NULL))
  EXECUTE FUNCTION webhook_wallet_trigger();

-- Auto-recharge outcomes: auto_recharge.succeeded / auto_recharge.failed.
CREATE FUNCTION webhook_auto_recharge_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(NEW.account_id, 'auto_recharge.' || NEW.status, jsonb_build_object(
    'attempt_id', NEW.id, 'trigger', NEW.trigger, 'amount', webhook_usd(NEW.amount_micros), 'status', NEW.status,
    'payment_intent_id', NEW.payment_intent_id, 'failure_code', NEW.failure_code, 'failure_message', NEW.failure_message));
  RETURN NULL;
END;
$$;
CREATE TRIGGER billing_auto_recharge_webhook_insert AFTER INSERT ON billing_auto_recharge_attempts FOR EACH ROW
  WHEN (NEW.status IN ('succeeded', 'failed')) EXECUTE FUNCTION webhook_auto_recharge_trigger();
CREATE TRIGGER billing_auto_recharge_webhook_update AFTER UPDATE OF status ON billing_auto_recharge_attempts FOR EACH ROW
  WHEN (NEW.status IN ('succeeded', 'failed') AND OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION webhook_auto_recharge_trigger();

-- The dispatcher: numbers up to p_limit committed events per account, in the order it reads
-- them, and creates one delivery per enabled endpoint that subscribes to the event's type.
-- Returns how many events it numbered (0 when another dispatcher holds the lock).
CREATE FUNCTION webhook_dispatch(p_limit integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  ev record;
  v_seq bigint;
  n integer := 0;
BEGIN
  PERFORM 1 FROM webhook_dispatch_lock WHERE id = 1 FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  FOR ev IN SELECT id, account_id, type FROM webhook_events WHERE sequence IS NULL ORDER BY pos LIMIT p_limit LOOP
    INSERT INTO webhook_account_sequences AS s (account_id, last_sequence) VALUES (ev.account_id, 1)
      ON CONFLICT (account_id) DO UPDATE SET last_sequence = s.last_sequence + 1
      RETURNING s.last_sequence INTO v_seq;
    UPDATE webhook_events SET sequence = v_seq WHERE id = ev.id;
    INSERT INTO webhook_deliveries (endpoint_id, event_id, sequence, status)
      SELECT e.id, ev.id, v_seq, 'pending' FROM webhook_endpoints e
       WHERE e.account_id = ev.account_id AND e.status = 'enabled'
         AND (ev.type = ANY (e.event_types) OR '*' = ANY (e.event_types));
    n := n + 1;
  END LOOP;
  RETURN n;
END;
$$;
