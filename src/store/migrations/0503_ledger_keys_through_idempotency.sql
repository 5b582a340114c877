-- Ledger credits' keys through the one mechanism (0500; docs/decisions/foundation-idempotency-one-mechanism.md).
--
-- A credit with a key claims it (scope 'ledger') after locking the wallet and records it with
-- its transfer. Owner: the account for a grant (the operator's key, per account as before);
-- 'processor' for a payment's external reference (payment_intent:…, checkout:…), unique over
-- the whole ledger as before. Request: the kind and amount.
--   same key, same credit      → nothing moves; the first transfer (`credited` false), as before
--   a payment, another amount  → the same: the first credit of a payment wins (the processor's
--                                 events are not refused, they are answered)
--   a grant, another amount    → IDEMPOTENCY_KEY_REUSED (409), where it used to be silently
--                                 "already granted": the amount asked for was never granted
--   concurrently               → waits for the first (p_wait) and then answers as above
-- Existing keyed transfers are copied first (a grant's key from its 'grant:<account>:' form);
-- the transfers' UNIQUE (idempotency_key) then goes. The column stays: it shows the reference.

INSERT INTO idempotency_keys (owner, scope, key_hash, request_hash, state, ref, created_at)
SELECT CASE WHEN g THEN t.account_id::text ELSE 'processor' END, 'ledger',
       idempotency_hash(CASE WHEN g THEN substr(t.idempotency_key, length('grant:' || t.account_id::text || ':') + 1) ELSE t.idempotency_key END),
       idempotency_hash(t.kind || ':' || t.amount_micros::text), 'done', t.id, t.created_at
  FROM ledger_transfers t,
       LATERAL (SELECT t.kind = 'grant' AND t.account_id IS NOT NULL AND starts_with(t.idempotency_key, 'grant:' || t.account_id::text || ':') AS g) x
 WHERE t.idempotency_key IS NOT NULL;

ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_idempotency_key_key;

-- As 0400's, with the key claimed and recorded through the mechanism instead of the
-- transfers' unique index. Same arguments, same results.
CREATE OR REPLACE FUNCTION ledger_credit(
  p_account uuid, p_kind text, p_amount bigint, p_description text, p_key text,
  OUT credited boolean, OUT transfer_id uuid, OUT balance_after bigint, OUT error json
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  w billing_wallets%ROWTYPE;
  v_transfer uuid := gen_random_uuid();
  v_from text := CASE p_kind WHEN 'grant' THEN 'platform:promotional' ELSE 'processor:clearing' END;
  v_to text := 'acct:' || p_account::text || ':available';
  v_ref text := CASE WHEN p_kind = 'grant' AND p_key IS NOT NULL THEN 'grant:' || p_account::text || ':' || p_key ELSE p_key END;
  v_owner text := CASE WHEN p_kind = 'grant' THEN p_account::text ELSE 'processor' END;
  v_key text := idempotency_hash(p_key);
  v_request text := idempotency_hash(p_kind || ':' || p_amount::text);
  c record;
BEGIN
  IF p_amount <= 0 THEN
    error := json_build_object('code', 'INVALID_AMOUNT', 'message', 'A credit must be positive.');
    RETURN;
  END IF;
  w := ledger_lock_wallet(p_account);
  IF p_key IS NOT NULL THEN
    c := idempotency_claim(v_owner, 'ledger', v_key, v_request, NULL, NULL, true);
    IF c.outcome = 'reused' AND p_kind = 'grant' THEN
      error := json_build_object('code', 'IDEMPOTENCY_KEY_REUSED',
        'message', 'This idempotency key was already used for a grant of another amount; nothing was granted.',
        'details', json_build_object('idempotency_key', p_key, 'transfer_id', c.ref));
      RETURN;
    ELSIF c.outcome IN ('replay', 'reused') THEN
      transfer_id := c.ref;
      credited := false;
      balance_after := w.available_micros;
      RETURN;
    ELSIF c.outcome <> 'new' THEN
      -- Not expected: a waiting claim is never in flight, and ledger keys are never in progress.
      RAISE EXCEPTION 'ledger key claim answered %', c.outcome;
    END IF;
  END IF;
  INSERT INTO ledger_transfers (id, kind, from_account, to_account, amount_micros, account_id, description, idempotency_key)
  VALUES (v_transfer, p_kind, v_from, v_to, p_amount, p_account, p_description, v_ref);
  INSERT INTO ledger_entries (transfer_id, ledger_account, account_id, amount_micros)
  VALUES (v_transfer, v_from, NULL, -p_amount), (v_transfer, v_to, p_account, p_amount);
  UPDATE billing_wallets x SET available_micros = x.available_micros + p_amount, updated_at = now(),
    ar_requested_at = CASE WHEN x.ar_threshold_micros IS NOT NULL AND x.available_micros + p_amount >= x.ar_threshold_micros THEN NULL ELSE x.ar_requested_at END
  WHERE x.account_id = p_account
  RETURNING x.available_micros INTO balance_after;
  IF p_key IS NOT NULL THEN
    PERFORM idempotency_record(v_owner, 'ledger', v_key, v_request, v_transfer);
  END IF;
  credited := true;
  transfer_id := v_transfer;
END;
$$;
