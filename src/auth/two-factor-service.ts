/**
 * Two-factor sign-in with TOTP (RFC 6238): enrol (secret + otpauth URI), confirm with a first code
 * (ten recovery codes, shown once, stored hashed), sign in through a short-lived challenge, and
 * disable with a code. Wrong codes are throttled per user like passwords; a code is accepted once.
 */
import { randomUUID } from 'node:crypto';
import { fail } from '../errors/app-error.js';
import { twoFactorMail } from '../mail/templates.js';
import type { AccountRepository } from './account-ports.js';
import { throttle } from './account-service.js';
import { base32Decode } from './base32.js';
import { AUTH_ERRORS } from './error-codes.js';
import type { SessionOrigin, SessionRecord, SessionService } from './session-service.js';
import { matchTotp, newRecoveryCodes, newTotpSecret, normalizeRecoveryCode, otpauthUri } from './totp.js';

export interface TwoFactorPolicy {
  readonly issuer: string;
  readonly challengeTtlSeconds: number;
  /** Wrong codes per user in the window before 429 (LOGIN_MAX_FAILURES). */
  readonly maxFailures: number;
  readonly windowSeconds: number;
}

export type SecondFactor = { readonly code: string } | { readonly recoveryCode: string };

export class TwoFactorService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly sessions: SessionService,
    private readonly policy: TwoFactorPolicy,
    private readonly hashSecret: (secret: string) => string,
    private readonly nudge: () => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async enrol(userId: string): Promise<{ secret: string; otpauthUri: string }> {
    const u = await this.repo.findUser(userId);
    if (u === null) throw fail(AUTH_ERRORS.MFA_NOT_ENABLED, 'No such user.');
    if (u.totpEnabledAt !== null) throw fail(AUTH_ERRORS.MFA_ALREADY_ENABLED, 'Two-factor sign-in is already on; disable it first.');
    const secret = newTotpSecret();
    await this.repo.setPendingTotp(userId, secret);
    return { secret, otpauthUri: otpauthUri(this.policy.issuer, u.email, secret) };
  }

  /** Confirms the pending enrolment with a first code; returns the recovery codes (shown once). */
  async confirm(userId: string, code: string): Promise<{ recoveryCodes: string[] }> {
    const u = await this.repo.findUser(userId);
    if (u === null || u.totpPendingSecret === null) throw fail(AUTH_ERRORS.MFA_NOT_ENABLED, 'No enrolment is pending; start one at POST /v1/auth/mfa/totp.');
    if (u.totpEnabledAt !== null) throw fail(AUTH_ERRORS.MFA_ALREADY_ENABLED, 'Two-factor sign-in is already on.');
    await this.guard(userId);
    const step = matchTotp(base32Decode(u.totpPendingSecret), code, this.now().getTime());
    if (step === null) throw fail(AUTH_ERRORS.MFA_CODE_INVALID, 'The code does not match the new secret; check the authenticator’s clock.');
    const codes = newRecoveryCodes();
    const now = this.now();
    if (
      !(await this.repo.enableTotp(
        userId,
        step,
        codes.map((c) => this.hashSecret(c)),
        now,
        twoFactorMail('enabled', now),
      ))
    ) {
      throw fail(AUTH_ERRORS.MFA_ALREADY_ENABLED, 'Two-factor sign-in was turned on by another request.');
    }
    await this.repo.clearAttempts([this.key(userId)]);
    this.nudge();
    return { recoveryCodes: codes };
  }

  async disable(userId: string, factor: SecondFactor): Promise<void> {
    await this.check(userId, factor);
    const now = this.now();
    await this.repo.disableTotp(userId, now, twoFactorMail('disabled', now));
    this.nudge();
  }

  /** After the password of an enrolled user: a challenge the sign-in is completed with. */
  async challenge(userId: string): Promise<{ challengeId: string; expiresAt: Date }> {
    const id = randomUUID();
    const expiresAt = new Date(this.now().getTime() + this.policy.challengeTtlSeconds * 1000);
    await this.repo.createChallenge({ id, userId, expiresAt });
    return { challengeId: id, expiresAt };
  }

  async complete(challengeId: string, factor: SecondFactor, origin: SessionOrigin): Promise<{ token: string; session: SessionRecord }> {
    const invalid = () => fail(AUTH_ERRORS.MFA_CHALLENGE_INVALID, 'The two-factor challenge is unknown, used or expired; log in again.');
    const userId = await this.repo.findChallenge(challengeId, this.now());
    if (userId === null) throw invalid();
    await this.check(userId, factor);
    if (!(await this.repo.useChallenge(challengeId, this.now()))) throw invalid();
    return this.sessions.startSession(userId, origin);
  }

  /** Re-authentication for a sensitive operation (closing the account): a code or a recovery code. */
  verify(userId: string, factor: SecondFactor): Promise<void> {
    return this.check(userId, factor);
  }

  /** Checks a code (once per step) or spends a recovery code; wrong ones count toward the throttle. */
  private async check(userId: string, factor: SecondFactor): Promise<void> {
    const u = await this.repo.findUser(userId);
    if (u === null || u.totpEnabledAt === null || u.totpSecret === null) throw fail(AUTH_ERRORS.MFA_NOT_ENABLED, 'Two-factor sign-in is not on for this account.');
    await this.guard(userId);
    let ok: boolean;
    if ('code' in factor) {
      const step = matchTotp(base32Decode(u.totpSecret), factor.code, this.now().getTime());
      ok = step !== null && (await this.repo.useTotpStep(userId, step));
    } else {
      ok = await this.repo.useRecoveryCode(userId, this.hashSecret(normalizeRecoveryCode(factor.recoveryCode)), this.now());
    }
    if (!ok) throw fail(AUTH_ERRORS.MFA_CODE_INVALID, 'The code is wrong or was already used.');
    await this.repo.clearAttempts([this.key(userId)]);
  }

  private key(userId: string): string {
    return `mfa:${userId}`;
  }

  private guard(userId: string): Promise<void> {
    return throttle(this.repo, [{ key: this.key(userId), max: this.policy.maxFailures }], this.policy.windowSeconds, this.now(), AUTH_ERRORS.MFA_THROTTLED);
  }
}
