-- Money movements in the audit log of a team organization (issue #39 item 5;
-- docs/organizations.md#audit-log). Every ledger transfer of an organization that is not a
-- personal one writes an org_audit_events row in the transfer's own transaction, so the log
-- cannot miss a movement nor record one that rolled back. The actor is who submitted the spend
-- (the hold's submitter, migration 1810): a person or a credential; 'system' for a movement
-- nobody submitted (a top-up credited by the processor, a grant, an expiry of a hold from
-- before 1810). The request id is the transaction's `qrail.request_id` setting when the request
-- that moved the money set it, null otherwise. Personal organizations are left out: their
-- ledger is already their person's own record (GET /v1/billing/ledger).
CREATE FUNCTION org_audit_ledger_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_by text;
  v_kind text := 'system';
  v_id text;
BEGIN
  IF NEW.account_id IS NULL OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = NEW.account_id AND NOT a.personal) THEN
    RETURN NULL;
  END IF;
  IF NEW.hold_id IS NOT NULL THEN
    SELECT h.submitted_by INTO v_by FROM billing_holds h WHERE h.id = NEW.hold_id;
  END IF;
  IF v_by LIKE 'user:%' THEN
    v_kind := 'person';
    v_id := substr(v_by, 6);
  ELSIF v_by IS NOT NULL THEN
    v_kind := 'credential';
    v_id := CASE WHEN v_by LIKE 'credential:%' THEN substr(v_by, 12) ELSE v_by END;
  END IF;
  INSERT INTO org_audit_events (account_id, actor_kind, actor_id, action, target, request_id, details)
  VALUES (NEW.account_id, v_kind, v_id, 'money.' || NEW.kind, COALESCE(NEW.hold_id, NEW.id)::text, NULLIF(current_setting('qrail.request_id', true), ''),
          jsonb_build_object('transfer_id', NEW.id, 'amount', ledger_usd(NEW.amount_micros), 'description', NEW.description)
            || CASE WHEN NEW.hold_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('hold_id', NEW.hold_id) END);
  RETURN NULL;
END;
$$;

CREATE TRIGGER ledger_transfers_org_audit AFTER INSERT ON ledger_transfers FOR EACH ROW EXECUTE FUNCTION org_audit_ledger_trigger();
