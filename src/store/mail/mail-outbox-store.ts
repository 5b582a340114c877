import { randomUUID } from 'node:crypto';
import type { MailOutboxStore, OutboxEntry, OutboxMessage, OutgoingMail } from '../../mail/mail.js';
import type { Database, Queryable } from '../db.js';
import { pageClauses } from '../list-page.js';

interface Row {
  id: string;
  to_address: string;
  template: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
}

interface EntryRow extends Row {
  status: OutboxEntry['status'];
  created_at: Date;
  sent_at: Date | null;
  transport: string | null;
  last_error: string | null;
  created_us: string;
}

const toMessage = (r: Row): OutboxMessage => ({ id: r.id, to: r.to_address, template: r.template, subject: r.subject, text: r.text_body, html: r.html_body, attempts: r.attempts });

/** Writes a message into the outbox on the caller's transaction (the one that asks for the mail). */
export async function enqueueMail(q: Queryable, userId: string | null, m: OutgoingMail): Promise<string> {
  const id = randomUUID();
  await q.query('INSERT INTO mail_outbox (id, user_id, to_address, template, subject, text_body, html_body) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    id,
    userId,
    m.to,
    m.template,
    m.subject,
    m.text,
    m.html,
  ]);
  return id;
}

export function pgMailOutboxStore(db: Database): MailOutboxStore {
  return {
    async claimDue(now, limit) {
      const r = await db.query<Row>(
        `UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1
         WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= $1
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING id, to_address, template, subject, text_body, html_body, attempts`,
        [now, limit],
      );
      return r.rows.map(toMessage);
    },
    async markSent(id, now, transport, keepBody) {
      // A sent SMTP message's body held single-use links: it is not kept once it has left.
      await db.query(
        `UPDATE mail_outbox SET status = 'sent', sent_at = $2, transport = $3, last_error = NULL,
           text_body = CASE WHEN $4::boolean THEN text_body ELSE '' END, html_body = CASE WHEN $4::boolean THEN html_body ELSE '' END
         WHERE id = $1`,
        [id, now, transport, keepBody],
      );
    },
    async markFailed(id, error, nextAttemptAt) {
      await db.query(
        `UPDATE mail_outbox SET last_error = $2, status = CASE WHEN $3::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
           next_attempt_at = COALESCE($3::timestamptz, next_attempt_at) WHERE id = $1`,
        [id, error, nextAttemptAt],
      );
    },
    async list(limit, before) {
      const params: unknown[] = [];
      const { where, tail } = pageClauses('created_at', 'id', { limit, position: before }, params);
      const r = await db.query<EntryRow>(
        `SELECT id, to_address, template, subject, text_body, html_body, attempts, status, created_at, sent_at, transport, last_error,
           (extract(epoch from created_at) * 1000000)::bigint AS created_us
         FROM mail_outbox ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ${tail}`,
        params,
      );
      return r.rows.map((row) => ({
        ...toMessage(row),
        status: row.status,
        createdAt: new Date(row.created_at),
        sentAt: row.sent_at === null ? null : new Date(row.sent_at),
        transport: row.transport,
        lastError: row.last_error,
        createdAtMicros: BigInt(row.created_us),
      }));
    },
  };
}
