import nodemailer from 'nodemailer';
import type { MailTransport, OutboxMessage } from '../mail.js';

/** SMTP through nodemailer; the outbox id is the Message-ID, so a relay or reader can tell a message apart. */
export function smtpTransport(smtpUrl: string, messageIdDomain: string): MailTransport {
  const t = nodemailer.createTransport(smtpUrl);
  return {
    kind: 'smtp',
    keepsBody: false,
    async send(m: OutboxMessage, from: string) {
      await t.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: `<${m.id}@${messageIdDomain}>` });
    },
    async close() {
      t.close();
    },
  };
}
