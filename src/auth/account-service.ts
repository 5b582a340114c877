/**
 * The account operations of issue #26 that a person does for themself: confirm the email,
 * recover and change the password, see and end sessions. Two-factor sign-in is in
 * two-factor-service.ts. Mails are rendered here and written to the outbox by the repository in
 * the transaction of the change; `nudge` asks the outbox worker to send them now.
 */
import { fail, type ErrorCodeSpec } from '../errors/app-error.js';
import { passwordChangedMail, passwordResetMail, verifyEmailMail } from '../mail/templates.js';
import type { AccountRepository, ActiveCredential, SessionListItem } from './account-ports.js';
import { AUTH_ERRORS } from './error-codes.js';
import type { AttemptCount, SessionService } from './session-service.js';
import { isWellFormed, newSecret } from './tokens.js';

export const VERIFY_PREFIX = 'qrv_';
export const RESET_PREFIX = 'qrp_';

export interface AccountPolicy {
  /** Absolute base of the links in mails (PUBLIC_BASE_URL). */
  readonly publicBaseUrl: string;
  readonly verifyTtlHours: number;
  readonly resetTtlMinutes: number;
  /** Mails one email (or user) may ask for in the window; an address gets four times as many. */
  readonly mailsPerWindow: number;
  readonly mailWindowSeconds: number;
  /** Whether an unverified email blocks top-ups, holds and machine credentials. */
  readonly requireVerifiedEmail: boolean;
}

/** Counts attempts for keys and refuses with `code` once one is over its allowance. */
export async function throttle(
  repo: Pick<AccountRepository, 'countAttempts'>,
  keys: ReadonlyArray<{ key: string; max: number }>,
  windowSeconds: number,
  now: Date,
  code: ErrorCodeSpec,
): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const counts = await repo.countAttempts(
    keys.map((k) => k.key),
    now,
    new Date(now.getTime() - windowMs),
  );
  const over = counts.filter((c: AttemptCount) => c.attempts > (keys.find((k) => k.key === c.key)?.max ?? Infinity));
  if (over.length === 0) return;
  const endsAt = Math.max(...over.map((c) => c.windowStartedAt.getTime() + windowMs));
  const seconds = Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000));
  throw fail(code, `Too many requests; retry in ${seconds} s.`, { retry_after_seconds: seconds }, { 'retry-after': String(seconds) });
}

export class AccountService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly sessions: SessionService,
    private readonly policy: AccountPolicy,
    private readonly hashSecret: (secret: string) => string,
    /** Asks the outbox worker to send what was just written. */
    private readonly nudge: () => void,
    /** Credentials were revoked in bulk: cached lookups must not serve them. */
    private readonly credentialsRevoked: () => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get requireVerifiedEmail(): boolean {
    return this.policy.requireVerifiedEmail;
  }

  /**
   * Whether the account may move money in, hold funds or create credentials (the verification
   * gate). It is the account's state, not the caller's: a session, a token exchanged from it, a
   * machine credential and its OAuth tokens all act for the same account (issue #34 item 2).
   */
  accountEmailVerified(accountId: string): Promise<boolean> {
    return this.repo.accountEmailVerified(accountId);
  }

  /** Mails a verification link (at registration, and on request: throttled per user and address). */
  async sendVerification(userId: string, ip: string | null): Promise<{ alreadyVerified: boolean }> {
    const now = this.now();
    const u = await this.repo.findUser(userId);
    if (u === null || u.closedAt !== null) return { alreadyVerified: false };
    if (u.emailVerifiedAt !== null) return { alreadyVerified: true };
    if (ip !== null) await this.throttleMail([`verify:${userId}`], ip, now);
    const token = newSecret(VERIFY_PREFIX);
    const link = `${this.policy.publicBaseUrl}/v1/auth/email/verify?token=${token}`;
    await this.repo.issueToken(
      { userId, purpose: 'verify_email', tokenHash: this.hashSecret(token), expiresAt: new Date(now.getTime() + this.policy.verifyTtlHours * 3_600_000) },
      verifyEmailMail(link, this.policy.verifyTtlHours),
    );
    this.nudge();
    return { alreadyVerified: false };
  }

  async verifyEmail(token: string): Promise<{ userId: string }> {
    const userId = isWellFormed(token, VERIFY_PREFIX) ? await this.repo.verifyEmail(this.hashSecret(token), this.now()) : null;
    if (userId === null) throw fail(AUTH_ERRORS.ACCOUNT_TOKEN_INVALID, 'This verification link is unknown, already used or expired; ask for a new one.');
    return { userId };
  }

  /**
   * Always the same answer for known and unknown emails: the throttle counts both alike, and the
   * token and mail are written by statements that find the account themselves, so the work done
   * does not depend on whether it exists.
   */
  async forgotPassword(email: string, ip: string): Promise<void> {
    const now = this.now();
    await this.throttleMail([`forgot:${email.trim().toLowerCase()}`], ip, now);
    const token = newSecret(RESET_PREFIX);
    const link = `${this.policy.publicBaseUrl}/v1/auth/password/reset?token=${token}`;
    await this.repo.issueResetByEmail(
      email.trim(),
      { tokenHash: this.hashSecret(token), expiresAt: new Date(now.getTime() + this.policy.resetTtlMinutes * 60_000) },
      passwordResetMail(link, this.policy.resetTtlMinutes),
    );
    // No nudge: sending at once would make a known email's answer slower than an unknown one's.
    // The outbox worker's next poll (MAIL_POLL_MS) sends it.
  }

  /**
   * Sets a new password from a reset link and ends every session of the user. The account's
   * machine credentials are revoked too unless `keepCredentials` (issue #34 item 3,
   * docs/decisions/accounts-reset-revokes-credentials.md); the mail names them either way.
   */
  async resetPassword(token: string, password: string, keepCredentials = false): Promise<{ credentialsRevoked: number }> {
    if (!isWellFormed(token, RESET_PREFIX)) throw fail(AUTH_ERRORS.ACCOUNT_TOKEN_INVALID, 'This reset link is unknown, already used or expired; ask for a new one.');
    const hash = await this.sessions.hashPassword(password);
    const now = this.now();
    const r = await this.repo.resetPassword(this.hashSecret(token), hash, now, keepCredentials, (credentials) => passwordChangedMail('reset', now, { kept: keepCredentials, credentials }));
    if (r === null) throw fail(AUTH_ERRORS.ACCOUNT_TOKEN_INVALID, 'This reset link is unknown, already used or expired; ask for a new one.');
    this.sessions.forgetCachedSessions();
    if (r.credentialsRevoked > 0) this.credentialsRevoked();
    this.nudge();
    return { credentialsRevoked: r.credentialsRevoked };
  }

  /** The credentials a reset link's page lists (null: the link is not usable). */
  async resetLinkCredentials(token: string): Promise<ActiveCredential[] | null> {
    if (!isWellFormed(token, RESET_PREFIX)) return null;
    return this.repo.resetLinkCredentials(this.hashSecret(token), this.now());
  }

  /** Changes the password with the current one; every other session ends, this one stays. */
  async changePassword(p: { userId: string; sessionId: string }, current: string, next: string, ip: string): Promise<void> {
    const user = await this.sessions.user(p.userId);
    if (user === null) throw fail(AUTH_ERRORS.CURRENT_PASSWORD_WRONG, 'The current password is wrong.');
    if (!(await this.sessions.checkPassword(user, current, ip))) throw fail(AUTH_ERRORS.CURRENT_PASSWORD_WRONG, 'The current password is wrong.');
    const now = this.now();
    await this.repo.changePassword(p.userId, await this.sessions.hashPassword(next), p.sessionId, now, passwordChangedMail('change', now));
    this.sessions.forgetCachedSessions();
    this.nudge();
  }

  listSessions(userId: string, page: { limit: number; before?: { createdAtMicros: bigint; id: string } | undefined }): Promise<SessionListItem[]> {
    return this.repo.listSessions(userId, this.now(), page);
  }

  async revokeSession(userId: string, sessionId: string): Promise<void> {
    if (!(await this.repo.revokeSession(userId, sessionId, this.now()))) throw fail(AUTH_ERRORS.SESSION_NOT_FOUND, `No active session ${sessionId} of yours.`);
    this.sessions.forgetCachedSessions();
  }

  /** Signs out everywhere (this session included); machine credentials only when asked. */
  async revokeAll(p: { userId: string; accountId: string }, includeCredentials: boolean): Promise<{ sessions: number; credentials: number }> {
    const r = await this.repo.revokeAll(p.userId, p.accountId, includeCredentials, this.now());
    this.sessions.forgetCachedSessions();
    if (r.credentials > 0) this.credentialsRevoked();
    return r;
  }

  private throttleMail(keys: readonly string[], ip: string, now: Date): Promise<void> {
    const max = this.policy.mailsPerWindow;
    return throttle(this.repo, [...keys.map((key) => ({ key, max })), { key: `mail-ip:${ip}`, max: max * 4 }], this.policy.mailWindowSeconds, now, AUTH_ERRORS.MAIL_THROTTLED);
  }
}
