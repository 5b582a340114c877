import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { Database } from '../store/db.js';
import { AccountService } from '../auth/account-service.js';
import { TwoFactorService } from '../auth/two-factor-service.js';
import { AccountClosure } from '../auth/account-closure.js';
import { pgClosureRepository } from '../store/accounts/closure-repository.js';
import type { SessionService } from '../auth/session-service.js';
import type { CredentialService } from '../auth/credentials.js';
import { mailSettings } from '../mail/mail-settings.js';
import { MailOutboxWorker } from '../mail/outbox-worker.js';
import type { MailOutboxStore } from '../mail/mail.js';
import { smtpTransport } from '../mail/adapters/smtp-transport.js';
import { devTransport } from '../mail/adapters/dev-transport.js';
import { pgMailOutboxStore } from '../store/mail/mail-outbox-store.js';
import { pgAccountRepository } from '../store/accounts/account-repository.js';

export interface AccountServices {
  /** Verification, password reset and change, sessions (issue #26). */
  readonly accounts: AccountService;
  readonly twoFactor: TwoFactorService;
  /** Closing an account and exporting its data. */
  readonly closure: AccountClosure;
  /** The outbox every account mail is sent from; its worker sends (SMTP or the development outbox). */
  readonly mailOutbox: MailOutboxWorker;
  readonly mailStore: MailOutboxStore;
}

type Log = (fields: Record<string, unknown>, msg: string) => void;

export function createAccountServices(
  config: Config,
  db: Database,
  deps: { sessions: SessionService; credentials: CredentialService },
  log: { info: Log; error: (e: unknown) => void },
): AccountServices {
  const { sessions } = deps;
  const settings = mailSettings(config.env, config.publicBaseUrl);
  const hash = (s: string) => createHash('sha256').update(s).digest('hex');
  const store = pgMailOutboxStore(db);
  const host = new URL(config.publicBaseUrl).hostname;
  const transport = settings.smtpUrl === undefined ? devTransport(log.info) : smtpTransport(settings.smtpUrl, host);
  const mailOutbox = new MailOutboxWorker(store, transport, { from: settings.from, pollMs: settings.pollMs, maxAttempts: settings.maxAttempts }, log.error);
  const repo = pgAccountRepository(db);
  const nudge = () => mailOutbox.nudge();
  const accounts = new AccountService(
    repo,
    sessions,
    {
      publicBaseUrl: config.publicBaseUrl,
      verifyTtlHours: 48,
      resetTtlMinutes: 30,
      mailsPerWindow: 5,
      mailWindowSeconds: 3600,
      requireVerifiedEmail: settings.requireVerifiedEmail,
    },
    hash,
    nudge,
    () => deps.credentials.forgetCached(),
  );
  const twoFactor = new TwoFactorService(
    repo,
    sessions,
    { issuer: 'qrail', challengeTtlSeconds: 300, maxFailures: config.loginThrottle.maxFailures, windowSeconds: config.loginThrottle.windowSeconds },
    hash,
    nudge,
  );
  const closure = new AccountClosure(pgClosureRepository(db), sessions, twoFactor, () => {
    sessions.forgetCachedSessions();
    deps.credentials.forgetCached();
    nudge();
  });
  return { accounts, twoFactor, closure, mailOutbox, mailStore: store };
}
