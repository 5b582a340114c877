import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../helpers/wait-for.js';

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  /** The raw message with quoted-printable soft breaks and escapes decoded (enough to read links). */
  readonly body: string;
}

function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps what it receives. */
export async function startSmtpReceiver(): Promise<{ url: string; mails: ReceivedMail[]; waitForMail: (to: string, match: RegExp) => Promise<ReceivedMail>; close: () => Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          body: decodeQuotedPrintable(Buffer.concat(chunks).toString('latin1')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail: (to, match) => waitFor(() => mails.find((m) => m.to.includes(to.toLowerCase()) && match.test(m.body)), { what: `a mail to ${to} matching ${String(match)}` }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link of a mail to this service's path. */
export function linkIn(mail: ReceivedMail, path: string): URL {
  const m = new RegExp(`https?://[^\\s"<>]*${path.replace(/\//g, '\\/')}\\?token=[A-Za-z0-9_-]+`).exec(mail.body);
  if (m === null) throw new Error(`no ${path} link in the mail`);
  return new URL(m[0]);
}
