-- One idempotency mechanism (issue 18 item 3; docs/decisions/foundation-idempotency-one-mechanism.md).
--
-- idempotency_keys (0020) becomes the one table of client idempotency keys, keyed by
-- (owner, scope, key_hash):
--   scope 'header'     the Idempotency-Key header on platform POSTs; owner = account id or 'operator';
--                      leased reservation, stored (sealed) response, run token; kept 24 h.
--   scope 'jobs'       Account Jobs' body idempotency_key; owner = account id; ref = the job.
--   scope 'execution'  execution client_token; owner = account id; ref = the execution job.
--   scope 'ledger'     a credit's key; owner = account id (grants) or 'processor' (a payment's
--                      external reference, unique over the whole ledger); ref = the transfer.
-- The key is stored only as its SHA-256 (the header's response is sealed under the raw key).
-- Rows of jobs, execution and ledger are written by the statement that makes their object, in
-- its transaction (idempotency_record), so a refused request leaves no key; they are kept as
-- long as their object, as before this migration. 0501–0503 move each caller onto the
-- functions below and copy its existing keys here.

ALTER TABLE idempotency_keys ADD COLUMN scope text NOT NULL DEFAULT 'header';
ALTER TABLE idempotency_keys ALTER COLUMN scope DROP DEFAULT;
-- The object the request made (jobs, execution, ledger); the header stores its response instead.
ALTER TABLE idempotency_keys ADD COLUMN ref uuid;
-- Only a leased reservation has a route, a run token and a lease.
ALTER TABLE idempotency_keys ALTER COLUMN route DROP NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN run_token DROP NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN locked_until DROP NOT NULL;
-- One CHECK for the row (each CHECK costs every submission a few microseconds; see 0206).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_row_check CHECK (
  state IN ('in_progress', 'done', 'failed') AND scope IN ('header', 'jobs', 'execution', 'ledger')
  AND (state <> 'in_progress' OR (run_token IS NOT NULL AND locked_until IS NOT NULL)));
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (owner, scope, key_hash);
-- The purge reads only the scope that expires; partial, so a job submission adds no entry here.
DROP INDEX idempotency_keys_created_idx;
CREATE INDEX idempotency_keys_header_created_idx ON idempotency_keys (created_at) WHERE scope = 'header';

-- Hex SHA-256 of a text: a raw key's hash, and a request hash where SQL computes one. The HTTP
-- plugin computes the same in TypeScript (idempotencyHash, src/idempotency/idempotency.ts).
CREATE FUNCTION idempotency_hash(p text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT encode(sha256(convert_to(p, 'UTF8')), 'hex')
$$;

-- How long a scope remembers a key (null: as long as its object exists). Only the header's
-- keys expire: a job, an execution job or a credit answers its key for as long as it exists.
CREATE FUNCTION idempotency_retention(p_scope text) RETURNS interval LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE p_scope WHEN 'header' THEN interval '24 hours' END
$$;

-- What a key stands for now, from the committed row, without writing:
--   new        no row, or one that no longer counts (past retention, or a run that failed: it
--              stored nothing, so the key may be used again); `stale` says a row is there
--   reused     the key names another request (ref: its object; route: the header's route)
--   replay     the same request, done (ref: its object; status_code, response: the header's answer)
--   in_flight  the same request, still in progress (the header's lease)
-- Volatile, so that called after a lock it sees what the lock's previous holder committed.
CREATE FUNCTION idempotency_lookup(
  p_owner text, p_scope text, p_key_hash text, p_request_hash text,
  OUT outcome text, OUT ref uuid, OUT status_code integer, OUT response text, OUT route text, OUT stale boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k idempotency_keys%ROWTYPE;
BEGIN
  SELECT * INTO k FROM idempotency_keys x WHERE x.owner = p_owner AND x.scope = p_scope AND x.key_hash = p_key_hash;
  stale := FOUND;
  IF NOT FOUND OR k.state = 'failed' OR k.created_at <= now() - idempotency_retention(p_scope) THEN
    outcome := 'new';
    RETURN;
  END IF;
  stale := false;
  ref := k.ref;
  route := k.route;
  IF k.request_hash <> p_request_hash THEN
    outcome := 'reused';
  ELSIF k.state = 'done' THEN
    outcome := 'replay';
    status_code := k.status_code;
    response := k.response;
  ELSE
    outcome := 'in_flight';
  END IF;
END;
$$;

-- Claims a key for a request: 'new' (go ahead), else what idempotency_lookup answers. Two ways:
--  * p_lease_seconds set — a request whose effects span several transactions (the header's
--    handler): the key is reserved in_progress for that long, in this statement's own
--    transaction, and the request ends it with idempotency_finish. A failed run, a key past
--    retention, or a lapsed lease of the same request is taken over; the same request keeps its
--    run_token (the domain keys its own effects by it, so a retry after a crash does not repeat
--    them). One statement reserves, so concurrent callers serialise on the primary key.
--  * p_lease_seconds null — a request whose object is made in the caller's transaction (jobs,
--    execution, ledger): the key is locked for the rest of that transaction — a concurrent
--    holder makes it 'in_flight', or with p_wait is waited for — and on 'new' the caller writes
--    its object and idempotency_record in the same transaction, so a refusal (returned before
--    recording, or rolled back) leaves no key. The lock is re-entrant: a batch (jobs_submit_many)
--    sees a key an earlier item of the batch recorded.
CREATE FUNCTION idempotency_claim(
  p_owner text, p_scope text, p_key_hash text, p_request_hash text, p_route text, p_lease_seconds integer, p_wait boolean,
  OUT outcome text, OUT ref uuid, OUT run_token uuid, OUT status_code integer, OUT response text, OUT route text
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_lock bigint;
  v_retention interval := idempotency_retention(p_scope);
  l record;
BEGIN
  IF p_lease_seconds IS NULL THEN
    v_lock := hashtextextended('qrail.idempotency:' || p_scope || ':' || p_owner || ':' || p_key_hash, 0);
    IF p_wait THEN
      PERFORM pg_advisory_xact_lock(v_lock);
    ELSIF NOT pg_try_advisory_xact_lock(v_lock) THEN
      outcome := 'in_flight';
      RETURN;
    END IF;
    l := idempotency_lookup(p_owner, p_scope, p_key_hash, p_request_hash);
    IF l.outcome = 'new' AND l.stale THEN
      -- Under the lock: the row that no longer counts makes way for the caller's record.
      DELETE FROM idempotency_keys x WHERE x.owner = p_owner AND x.scope = p_scope AND x.key_hash = p_key_hash;
    END IF;
    outcome := l.outcome;
    ref := l.ref;
    status_code := l.status_code;
    response := l.response;
    route := l.route;
    RETURN;
  END IF;

  -- A row can change between the reservation and the lookup only by the purge or a finish; the
  -- next pass then reserves or answers it.
  FOR attempt IN 1 .. 3 LOOP
    INSERT INTO idempotency_keys AS k (owner, scope, key_hash, request_hash, route, state, run_token, locked_until, created_at)
    VALUES (p_owner, p_scope, p_key_hash, p_request_hash, p_route, 'in_progress', gen_random_uuid(), now() + p_lease_seconds * interval '1 second', now())
    ON CONFLICT (owner, scope, key_hash) DO UPDATE SET
      run_token = CASE WHEN k.request_hash = EXCLUDED.request_hash AND (v_retention IS NULL OR k.created_at > now() - v_retention) THEN k.run_token ELSE EXCLUDED.run_token END,
      created_at = CASE WHEN k.request_hash = EXCLUDED.request_hash AND (v_retention IS NULL OR k.created_at > now() - v_retention) THEN k.created_at ELSE now() END,
      request_hash = EXCLUDED.request_hash, route = EXCLUDED.route, state = 'in_progress',
      locked_until = EXCLUDED.locked_until, status_code = NULL, response = NULL, ref = NULL
    WHERE k.created_at <= now() - v_retention
       OR k.state = 'failed'
       OR (k.state = 'in_progress' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash)
    RETURNING k.run_token INTO run_token;
    IF FOUND THEN
      outcome := 'new';
      RETURN;
    END IF;
    l := idempotency_lookup(p_owner, p_scope, p_key_hash, p_request_hash);
    IF l.outcome <> 'new' THEN
      outcome := l.outcome;
      ref := l.ref;
      status_code := l.status_code;
      response := l.response;
      route := l.route;
      RETURN;
    END IF;
  END LOOP;
  outcome := 'in_flight';
END;
$$;

-- Records a key claimed without a lease as done, naming the object its request made: called by
-- the statement that makes the object, in its transaction, after idempotency_claim answered 'new'.
-- (plpgsql, not sql: a plpgsql function keeps its plan for the session, an sql one is planned
-- again by every statement that calls it, as each submission does.)
CREATE FUNCTION idempotency_record(p_owner text, p_scope text, p_key_hash text, p_request_hash text, p_ref uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO idempotency_keys (owner, scope, key_hash, request_hash, state, ref) VALUES (p_owner, p_scope, p_key_hash, p_request_hash, 'done', p_ref);
END;
$$;

-- Ends a leased claim: stores the answer (done), or with p_response null marks the run failed
-- (nothing stored; a retry may run at once, under the same run token). Only the run holding
-- p_run_token, while still in progress: false when another run took over or finished first.
CREATE FUNCTION idempotency_finish(p_owner text, p_scope text, p_key_hash text, p_run_token uuid, p_status_code integer, p_response text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  UPDATE idempotency_keys x SET state = CASE WHEN p_response IS NULL THEN 'failed' ELSE 'done' END,
    status_code = CASE WHEN p_response IS NULL THEN NULL ELSE p_status_code END, response = p_response,
    locked_until = CASE WHEN p_response IS NULL THEN now() ELSE x.locked_until END
  WHERE x.owner = p_owner AND x.scope = p_scope AND x.key_hash = p_key_hash AND x.run_token = p_run_token AND x.state = 'in_progress';
  RETURN FOUND;
END;
$$;

-- Deletes up to p_limit keys past retention (the header's: no other scope expires) and the
-- header's effects (0021) as old: an effect is younger than its key, so once it is past
-- retention no retry can inherit its run token. Returns how many keys it deleted.
CREATE FUNCTION idempotency_purge(p_limit integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM idempotency_effects WHERE ctid IN (
    SELECT ctid FROM idempotency_effects WHERE created_at < now() - idempotency_retention('header') LIMIT p_limit);
  DELETE FROM idempotency_keys WHERE ctid IN (
    SELECT ctid FROM idempotency_keys WHERE scope = 'header' AND created_at < now() - idempotency_retention('header') LIMIT p_limit);
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END;
$$;
