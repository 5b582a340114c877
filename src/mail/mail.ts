/**
 * Account mail (issue #26): what a message is, the transport port its adapters implement
 * (SMTP through nodemailer, or the development outbox), and the outbox store port. Every
 * message is first a row of the durable outbox, written in the transaction that asks for it.
 */

/** A rendered message: plain text and HTML of the same content. */
export interface MailContent {
  /** Template name, for the outbox listing and logs. */
  readonly template: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The links the message carries (logged by the development outbox). */
  readonly links: readonly string[];
}

export interface OutgoingMail extends MailContent {
  readonly to: string;
}

export interface OutboxMessage {
  readonly id: string;
  readonly to: string;
  readonly template: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly attempts: number;
}

export interface OutboxEntry extends OutboxMessage {
  readonly status: 'pending' | 'sending' | 'sent' | 'failed';
  readonly createdAt: Date;
  readonly sentAt: Date | null;
  readonly transport: string | null;
  readonly lastError: string | null;
}

/** Delivers one message; throws when it was not accepted (the outbox then retries). */
export interface MailTransport {
  /** `smtp` or `dev` (kept in the outbox row). */
  readonly kind: 'smtp' | 'dev';
  /** Whether a sent message's body is kept (the development outbox lists it; SMTP drops it: it holds single-use links). */
  readonly keepsBody: boolean;
  send(message: OutboxMessage, from: string): Promise<void>;
  close(): Promise<void>;
}

export interface MailOutboxStore {
  /**
   * Claims up to `limit` due pending messages (status → sending, attempts + 1) in one statement,
   * skipping rows another process holds, so two workers never claim the same message.
   */
  claimDue(now: Date, limit: number): Promise<OutboxMessage[]>;
  markSent(id: string, now: Date, transport: string, keepBody: boolean): Promise<void>;
  /** Back to pending for another attempt at `nextAttemptAt`, or failed for good when `nextAttemptAt` is null. */
  markFailed(id: string, error: string, nextAttemptAt: Date | null): Promise<void>;
  /** Newest first, for the operator listing. */
  list(limit: number, before?: { createdAtMicros: bigint; id: string }): Promise<Array<OutboxEntry & { createdAtMicros: bigint }>>;
}

const URL_IN_TEXT = /https?:\/\/[^\s<>"]+/g;

export function linksIn(text: string): string[] {
  return [...new Set(text.match(URL_IN_TEXT) ?? [])];
}
