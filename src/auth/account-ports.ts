/**
 * Storage port of the account operations of issue #26 (verification, password reset and change,
 * sessions, TOTP), implemented in src/store/accounts. Each method that sends a mail writes it to
 * the outbox in the same transaction as the change it reports.
 */
import type { MailContent } from '../mail/mail.js';
import type { AttemptCount } from './session-service.js';

export type TokenPurpose = 'verify_email' | 'password_reset';

export interface AccountUser {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly emailVerifiedAt: Date | null;
  readonly totpSecret: string | null;
  readonly totpPendingSecret: string | null;
  readonly totpEnabledAt: Date | null;
  readonly closedAt: Date | null;
}

/** A machine credential still in force, as the reset page and mail name it. */
export interface ActiveCredential {
  readonly id: string;
  readonly name: string;
  readonly hint: string;
  readonly scopes: readonly string[];
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export interface SessionListItem {
  readonly id: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly expiresAt: Date;
  /** created_at in µs, for the list cursor. */
  readonly createdAtMicros: bigint;
}

export interface AccountRepository {
  findUser(id: string): Promise<AccountUser | null>;
  /** Whether every open user of the account has confirmed their email (false for an account with none). */
  accountEmailVerified(accountId: string): Promise<boolean>;
  /** Stores a token for the user and the mail carrying it (sent to the user's address) in one transaction. */
  issueToken(t: { userId: string; purpose: TokenPurpose; tokenHash: string; expiresAt: Date }, mail: MailContent): Promise<void>;
  /**
   * The reset request: finds the open account by email inside the statements that store the token
   * and its mail, so a known and an unknown email cost the same work (only a row count differs).
   */
  issueResetByEmail(email: string, t: { tokenHash: string; expiresAt: Date }, mail: MailContent): Promise<void>;
  /** Consumes an unused, unexpired verification token and marks the email verified; the user id or null. */
  verifyEmail(tokenHash: string, now: Date): Promise<string | null>;
  /**
   * Consumes a reset token, sets the new password hash, revokes every session and the other reset
   * tokens, revokes the account's machine credentials unless `keepCredentials`, and mails the owner
   * (the mail names the credentials); the user id or null when the token is not usable.
   */
  resetPassword(
    tokenHash: string,
    passwordHash: string,
    now: Date,
    keepCredentials: boolean,
    mail: (credentials: ReadonlyArray<ActiveCredential>) => MailContent,
  ): Promise<{ userId: string; credentialsRevoked: number } | null>;
  /** The account's active machine credentials, for the page of a usable reset link; null when the link is not usable. */
  resetLinkCredentials(tokenHash: string, now: Date): Promise<ActiveCredential[] | null>;
  /** Sets the new hash, revokes every session but `keepSessionId`, and mails the owner. */
  changePassword(userId: string, passwordHash: string, keepSessionId: string, now: Date, mail: MailContent): Promise<void>;
  /** Counts one attempt for each key (the login_attempts table's windows); restarts windows begun at or before `expiredBefore`. */
  countAttempts(keys: readonly string[], now: Date, expiredBefore: Date): Promise<AttemptCount[]>;
  clearAttempts(keys: readonly string[]): Promise<void>;

  /** Active sessions, newest first, strictly older than `before` when given. */
  listSessions(userId: string, now: Date, page: { limit: number; before?: { createdAtMicros: bigint; id: string } | undefined }): Promise<SessionListItem[]>;
  /** Revokes one session of the user; false when it is not the user's or already ended. */
  revokeSession(userId: string, sessionId: string, now: Date): Promise<boolean>;
  /** Revokes every session of the user (and, asked, every machine credential of the account). */
  revokeAll(userId: string, accountId: string, includeCredentials: boolean, now: Date): Promise<{ sessions: number; credentials: number }>;

  setPendingTotp(userId: string, secret: string): Promise<void>;
  /** Turns TOTP on with the pending secret, stores the recovery codes' hashes and the step used, mails the owner. */
  enableTotp(userId: string, step: bigint, recoveryHashes: readonly string[], now: Date, mail: MailContent): Promise<boolean>;
  disableTotp(userId: string, now: Date, mail: MailContent): Promise<void>;
  /** Records a code's step as used if it is later than the last one used; false for a replay. */
  useTotpStep(userId: string, step: bigint): Promise<boolean>;
  /** Spends an unused recovery code; false when there is none with that hash. */
  useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean>;
  createChallenge(c: { id: string; userId: string; expiresAt: Date }): Promise<void>;
  /** The user of an unused, unexpired challenge. */
  findChallenge(id: string, now: Date): Promise<string | null>;
  /** Marks it used; false when another request used it first. */
  useChallenge(id: string, now: Date): Promise<boolean>;
}
