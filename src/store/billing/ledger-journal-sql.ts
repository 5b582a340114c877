import type { JournalEntry, JournalQueue } from '../../billing/ledger-journal.js';
import type { Database } from '../db.js';

interface Row {
  transfer_id: string;
  kind: string;
  amount_micros: string;
  account_id: string | null;
  hold_id: string | null;
  from_account: string;
  to_account: string;
  description: string;
  created_at: Date;
}

/** The journal queue of migration 1310: take, log and delete in one transaction. */
export function sqlJournalQueue(db: Database): JournalQueue {
  return {
    drain: (limit, each) =>
      db.tx(async (q) => {
        const r = await q.query<Row>('SELECT * FROM ledger_journal_take($1)', [limit], { name: 'ledger_journal_take' });
        for (const row of r.rows) {
          const e: JournalEntry = {
            transferId: row.transfer_id,
            kind: row.kind,
            amountMicros: BigInt(row.amount_micros),
            accountId: row.account_id,
            holdId: row.hold_id,
            from: row.from_account,
            to: row.to_account,
            description: row.description,
            createdAt: row.created_at,
          };
          each(e);
        }
        return r.rows.length;
      }),
  };
}
