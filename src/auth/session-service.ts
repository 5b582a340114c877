import { fail } from '../errors/app-error.js';
import { AUTH_ERRORS } from './error-codes.js';
import type { PasswordHasher } from './password-hasher.js';
import { SESSION_PREFIX, isWellFormed, newSecret } from './tokens.js';

export interface UserRecord {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly createdAt: Date;
  /** When the email was confirmed through its emailed link (null: not yet). */
  readonly emailVerifiedAt: Date | null;
  /** TOTP two-factor sign-in is on: a password alone starts no session. */
  readonly mfaEnabled: boolean;
}

/** Where a session was started from, shown in the session list. */
export interface SessionOrigin {
  readonly ip: string;
  readonly userAgent: string | null;
}

/** A login's outcome: a session, or (TOTP on) a password accepted that still needs a code. */
export type LoginResult = { readonly kind: 'session'; readonly token: string; readonly session: SessionRecord } | { readonly kind: 'mfa'; readonly user: UserRecord };

export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly accountId: string;
  readonly email: string;
  readonly userCreatedAt: Date;
  readonly createdAt: Date;
  readonly lastUsedAt: Date;
  readonly idleExpiresAt: Date;
  readonly absoluteExpiresAt: Date;
  readonly revokedAt: Date | null;
}

/** Storage port of the auth domain, implemented in src/store. */
export interface AuthRepository {
  /** Creates account + user; returns null when the email is taken. */
  createUser(email: string, passwordHash: string): Promise<UserRecord | null>;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  findUserById(id: string): Promise<UserRecord | null>;
  createSession(s: { userId: string; tokenHash: string; idleExpiresAt: Date; absoluteExpiresAt: Date; ip: string; userAgent: string | null }): Promise<SessionRecord>;
  findSession(tokenHash: string): Promise<SessionRecord | null>;
  findSessionById(id: string): Promise<SessionRecord | null>;
  touchSession(id: string, now: Date, idleExpiresAt: Date): Promise<void>;
  revokeSession(id: string, now: Date): Promise<void>;
  /**
   * Counts one login attempt for the email and for the address in one atomic step, starting a
   * fresh window for a key whose window began at or before `expiredBefore`.
   */
  countAttempt(email: string, ip: string, now: Date, expiredBefore: Date): Promise<LoginAttempts>;
  /** Takes back an attempt that never reached the password check (it was throttled). */
  refundAttempt(counted: LoginAttempts): Promise<void>;
  /** A successful login: the email's count restarts and the address gets its attempt back. */
  clearAttempts(counted: LoginAttempts, pruneBefore: Date): Promise<void>;
}

export interface AttemptCount {
  readonly key: string;
  readonly attempts: number;
  readonly windowStartedAt: Date;
}

export interface LoginAttempts {
  readonly email: AttemptCount;
  readonly ip: AttemptCount;
}

export type TokenState = 'missing' | 'malformed' | 'unknown' | 'valid' | 'expired' | 'revoked';

export interface SessionCheck {
  readonly state: TokenState;
  readonly session?: SessionRecord;
  /** For expired sessions: which limit was reached. */
  readonly expiredBy?: 'idle' | 'absolute';
}

export interface SessionPolicy {
  readonly idleTtlSeconds: number;
  readonly absoluteTtlSeconds: number;
  readonly cacheMs: number;
  readonly maxFailures: number;
  readonly throttleWindowSeconds: number;
}

// Touching a session writes; doing it on every request would make reads cost a write.
const TOUCH_INTERVAL_MS = 60_000;

export class SessionService {
  private readonly cache = new Map<string, { check: SessionCheck; until: number }>();

  constructor(
    private readonly repo: AuthRepository,
    private readonly hasher: PasswordHasher,
    private readonly policy: SessionPolicy,
    /** SHA-256 hex of a secret; injected so the hot path can use a synchronous native hash. */
    private readonly hashSecret: (secret: string) => string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async register(email: string, password: string): Promise<UserRecord> {
    const hash = await this.hasher.hash(password);
    const user = await this.repo.createUser(email.trim(), hash);
    if (user === null) throw fail(AUTH_ERRORS.EMAIL_TAKEN, 'An account with this email already exists.', [{ path: '/email', code: AUTH_ERRORS.EMAIL_TAKEN.code, message: 'is already registered' }]);
    return user;
  }

  async login(email: string, password: string, origin: SessionOrigin): Promise<LoginResult> {
    const ip = origin.ip;
    const now = this.now();
    const windowMs = this.policy.throttleWindowSeconds * 1000;
    // Counted before the hash is checked, atomically, so concurrent guesses cannot all pass a
    // check that only looked at earlier failures.
    const counted = await this.repo.countAttempt(email, ip, now, new Date(now.getTime() - windowMs));
    await this.throwIfOver(counted, now, windowMs);
    const user = await this.repo.findUserByEmail(email);
    // Hash even for unknown emails so timing does not reveal which emails exist.
    const ok = user === null ? (await this.hasher.hash(password), false) : await this.hasher.verify(user.passwordHash, password);
    // A failure keeps the attempt already counted.
    if (user === null || !ok) throw fail(AUTH_ERRORS.INVALID_CREDENTIALS, 'Email or password is incorrect.');
    await this.repo.clearAttempts(counted, new Date(now.getTime() - windowMs));
    if (user.mfaEnabled) return { kind: 'mfa', user };
    return { kind: 'session', ...(await this.startSession(user.id, origin)) };
  }

  /** A new session for a user whose sign-in is complete (password, and the TOTP code when enrolled). */
  async startSession(userId: string, origin: SessionOrigin): Promise<{ token: string; session: SessionRecord }> {
    const now = this.now();
    const token = newSecret(SESSION_PREFIX);
    const session = await this.repo.createSession({
      userId,
      tokenHash: this.hashSecret(token),
      idleExpiresAt: new Date(now.getTime() + this.policy.idleTtlSeconds * 1000),
      absoluteExpiresAt: new Date(now.getTime() + this.policy.absoluteTtlSeconds * 1000),
      ip: origin.ip,
      userAgent: origin.userAgent,
    });
    return { token, session };
  }

  /**
   * Counts a password check outside login (changing the password) against the same per-email and
   * per-address allowance, so the current-password prompt is no side door for guessing.
   */
  async checkPassword(user: UserRecord, password: string, ip: string): Promise<boolean> {
    const now = this.now();
    const windowMs = this.policy.throttleWindowSeconds * 1000;
    const counted = await this.repo.countAttempt(user.email, ip, now, new Date(now.getTime() - windowMs));
    await this.throwIfOver(counted, now, windowMs);
    const ok = await this.hasher.verify(user.passwordHash, password);
    if (ok) await this.repo.clearAttempts(counted, new Date(now.getTime() - windowMs));
    return ok;
  }

  /** Hashes a new password with the configured argon2id cost. */
  hashPassword(password: string): Promise<string> {
    return this.hasher.hash(password);
  }

  /** Drops every cached session check (after revoking sessions by id, whose tokens this process cannot name). */
  forgetCachedSessions(): void {
    this.cache.clear();
  }

  private async throwIfOver(counted: LoginAttempts, now: Date, windowMs: number): Promise<void> {
    // An address is shared by many users (NAT), so it gets a larger allowance than one email.
    const over = [counted.email.attempts > this.policy.maxFailures ? counted.email : undefined, counted.ip.attempts > this.policy.maxFailures * 4 ? counted.ip : undefined].filter(
      (c): c is AttemptCount => c !== undefined,
    );
    if (over.length > 0) {
      await this.repo.refundAttempt(counted);
      const endsAt = Math.max(...over.map((c) => c.windowStartedAt.getTime() + windowMs));
      const seconds = Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000));
      const retry = String(seconds);
      throw fail(AUTH_ERRORS.LOGIN_THROTTLED, `Too many failed logins; retry in ${retry} s.`, { retry_after_seconds: seconds }, { 'retry-after': retry });
    }
  }

  async check(token: string | undefined): Promise<SessionCheck> {
    if (token === undefined) return { state: 'missing' };
    const nowMs = this.now().getTime();
    // Keyed by the token itself, so a hit costs no hash: the token is in this process's request
    // memory anyway, and an entry lives at most `cacheMs`. The database only ever sees the hash.
    const cached = this.cache.get(token);
    if (cached !== undefined && cached.until > nowMs) return cached.check;
    if (!isWellFormed(token, SESSION_PREFIX)) return { state: 'malformed' };
    const hash = this.hashSecret(token);
    const s = await this.repo.findSession(hash);
    const result = this.classify(s, nowMs);
    if (result.state === 'valid' && s !== null) {
      if (nowMs - s.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
        const idle = new Date(Math.min(nowMs + this.policy.idleTtlSeconds * 1000, s.absoluteExpiresAt.getTime()));
        await this.repo.touchSession(s.id, new Date(nowMs), idle);
      }
      if (this.policy.cacheMs > 0) {
        const until = Math.min(nowMs + this.policy.cacheMs, s.idleExpiresAt.getTime(), s.absoluteExpiresAt.getTime());
        this.cache.set(token, { check: result, until });
        if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value as string);
      }
    }
    return result;
  }

  private classify(s: SessionRecord | null, nowMs: number): SessionCheck {
    if (s === null) return { state: 'unknown' };
    if (s.revokedAt !== null) return { state: 'revoked', session: s };
    if (s.absoluteExpiresAt.getTime() <= nowMs) return { state: 'expired', session: s, expiredBy: 'absolute' };
    if (s.idleExpiresAt.getTime() <= nowMs) return { state: 'expired', session: s, expiredBy: 'idle' };
    return { state: 'valid', session: s };
  }

  /**
   * The state of a session by id, for tokens derived from it (a Jobs access token obtained by
   * token exchange): logging out or expiry ends them too. Not cached, and does not extend the session.
   */
  async checkId(id: string): Promise<SessionCheck> {
    return this.classify(await this.repo.findSessionById(id), this.now().getTime());
  }

  async logout(token: string): Promise<void> {
    this.cache.delete(token);
    const s = await this.repo.findSession(this.hashSecret(token));
    if (s !== null && s.revokedAt === null) await this.repo.revokeSession(s.id, this.now());
  }

  async user(id: string): Promise<UserRecord | null> {
    return this.repo.findUserById(id);
  }
}
