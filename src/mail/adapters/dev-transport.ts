import { linksIn, type MailTransport, type OutboxMessage } from '../mail.js';

/**
 * The development outbox (no SMTP_URL): nothing leaves the machine. A message is "sent" by
 * keeping it in the outbox, listed with its links at the operator endpoint, so the embedded
 * default can verify an address or reset a password. The log names the message but never its
 * secrets: a verification (`qrv_…`) or reset (`qrp_…`) link in a log is an account takeover for
 * whoever reads the logs, so their tokens and the recipient's local part are redacted.
 */
export function devTransport(log: (fields: Record<string, unknown>, msg: string) => void): MailTransport {
  return {
    kind: 'dev',
    keepsBody: true,
    async send(m: OutboxMessage) {
      log({ mail_id: m.id, to: redactAddress(m.to), template: m.template, links: linksIn(m.text).map(redactLink) }, `dev outbox: ${m.subject} (links at the operator endpoint)`);
    },
    async close() {},
  };
}

/** Every token-looking value (`qr?_…`) of a link replaced by its prefix. */
export function redactLink(link: string): string {
  return link.replace(/\b(qr[a-z]_)[A-Za-z0-9_-]+/g, '$1[redacted]');
}

/** `ada@example.com` → `a…@example.com`. */
export function redactAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at <= 0 ? '[redacted]' : `${address.slice(0, 1)}…${address.slice(at)}`;
}
