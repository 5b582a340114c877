-- The money journal (issue #25): every ledger transfer is logged once by a worker, with its ids,
-- after the transaction that made it committed. A trigger queues the transfer's id in the same
-- transaction (so no path that moves money can skip it, whichever SQL function moved it); the
-- worker takes a batch, logs it and deletes it in one transaction, so a crash logs a batch again
-- rather than never (lines carry the transfer id; a repeat is recognisable).
CREATE TABLE ledger_journal_pending (
  transfer_id uuid PRIMARY KEY REFERENCES ledger_transfers(id),
  queued_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX ledger_journal_pending_order_idx ON ledger_journal_pending (queued_at, transfer_id);

CREATE FUNCTION ledger_journal_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_journal_pending (transfer_id) VALUES (NEW.id);
  RETURN NEW;
END;
$$;

CREATE TRIGGER ledger_transfers_journal AFTER INSERT ON ledger_transfers FOR EACH ROW EXECUTE FUNCTION ledger_journal_enqueue();

-- Takes up to n queued transfers, oldest first, with what a log line needs. Two workers taking at
-- once never take the same row: the second DELETE waits for the first and skips what it removed.
CREATE FUNCTION ledger_journal_take(n integer)
RETURNS TABLE (transfer_id uuid, kind text, amount_micros text, account_id uuid, hold_id uuid, from_account text, to_account text, description text, created_at timestamptz)
LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM ledger_journal_pending p
    WHERE p.transfer_id IN (SELECT q.transfer_id FROM ledger_journal_pending q ORDER BY q.queued_at, q.transfer_id LIMIT n)
    RETURNING p.transfer_id, p.queued_at
  )
  SELECT t.id, t.kind, t.amount_micros::text, t.account_id, t.hold_id, t.from_account, t.to_account, t.description, t.created_at
  FROM taken JOIN ledger_transfers t ON t.id = taken.transfer_id
  ORDER BY taken.queued_at, t.id
$$;
