import { ConfigError, bool, int, optional, type Env } from '../config/env-parser.js';

export interface MailSettings {
  /** `smtp://` or `smtps://` URL of the relay; undefined = the development outbox. */
  readonly smtpUrl: string | undefined;
  /** The From header. */
  readonly from: string;
  /** Whether an unverified email blocks top-ups, holds and machine credentials. */
  readonly requireVerifiedEmail: boolean;
  /** Idle poll of the outbox worker (a message written by this process is sent at once). */
  readonly pollMs: number;
  /** Attempts before a message is marked failed. */
  readonly maxAttempts: number;
}

const ADDRESS = /^(?:[^<>\r\n]*<)?[^\s@<>]+@[^\s@<>]+>?$/;

/** Parses the mail variables; the verification gate defaults on exactly when mail can reach people (SMTP configured). */
export function mailSettings(env: Env, publicBaseUrl: string): MailSettings {
  const smtpUrl = optional(env, 'SMTP_URL');
  if (smtpUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(smtpUrl);
    } catch {
      throw new ConfigError('SMTP_URL', 'must be a URL such as smtp://user:pass@host:587');
    }
    if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError('SMTP_URL', `must use smtp: or smtps:, got ${u.protocol}`);
  }
  const from = optional(env, 'MAIL_FROM') ?? `qrail <no-reply@${new URL(publicBaseUrl).hostname}>`;
  if (!ADDRESS.test(from)) throw new ConfigError('MAIL_FROM', `must be an address or "Name <address>", got "${from}"`);
  return {
    smtpUrl,
    from,
    requireVerifiedEmail: bool(env, 'REQUIRE_EMAIL_VERIFICATION', smtpUrl !== undefined),
    pollMs: int(env, 'MAIL_POLL_MS', 1000, 10, 600_000),
    maxAttempts: int(env, 'MAIL_MAX_ATTEMPTS', 8, 1, 100),
  };
}
