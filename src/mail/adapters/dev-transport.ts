import { linksIn, type MailTransport, type OutboxMessage } from '../mail.js';

/**
 * The development outbox (no SMTP_URL): nothing leaves the machine. A message is "sent" by
 * keeping it in the outbox (listed at the operator endpoint) and logging it with its links, so the
 * embedded default can verify an address or reset a password.
 */
export function devTransport(log: (fields: Record<string, unknown>, msg: string) => void): MailTransport {
  return {
    kind: 'dev',
    keepsBody: true,
    async send(m: OutboxMessage) {
      log({ mail_id: m.id, to: m.to, template: m.template, links: linksIn(m.text) }, `dev outbox: ${m.subject}`);
    },
    async close() {},
  };
}
