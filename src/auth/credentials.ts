/**
 * Agent credentials of the Account Jobs interface (DESIGN §4): revocable machine secrets
 * with a recognisable prefix, stored only as a hash and shown once. The same record is the
 * OAuth client of the client-credentials grant (client_id = credential id).
 */
import { fail } from '../errors/app-error.js';
import { JOBS_ERRORS } from '../jobs/error-codes.js';
import { isWellFormed, newSecret } from './tokens.js';

export const AGENT_SECRET_PREFIX = 'qrj_';
/** The scopes of the Account Jobs interface. */
export const JOBS_SCOPES = ['jobs:read', 'jobs:write'] as const;
export type JobsScope = (typeof JOBS_SCOPES)[number];

/**
 * Every scope a machine credential (and so its access tokens) can hold, on both interfaces
 * (DESIGN §11). A person's session holds them all. Which platform route needs which scope is
 * declared once, in src/http/route-access.ts; money that leaves the owner's card and the spend
 * controls themselves stay with the person (docs/decisions/auth-credential-scopes.md).
 */
export const CREDENTIAL_SCOPES = ['jobs:read', 'jobs:write', 'circuits:run', 'execute:simulator', 'execute:hardware', 'billing:read'] as const;
export type CredentialScope = (typeof CREDENTIAL_SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Readonly<Record<CredentialScope, string>> = {
  'jobs:read': 'Read Account Jobs and the balance (/v1/jobs, /v1/account/balance)',
  'jobs:write': 'Submit and cancel Account Jobs',
  'circuits:run': 'Analyze and optimize circuits, coupling analysis (/v1/circuits, /v1/analysis) without the anonymous limits',
  'execute:simulator': 'Run on simulators and read or cancel those runs (/v1/execute)',
  'execute:hardware': 'Quote, hold, continue, read, cancel and release hardware runs (/v1/billing/hardware, /v1/execute/provider-two/held)',
  'billing:read': 'Read the wallet, ledger, holds, spend controls and auto-recharge state (/v1/billing, read only)',
};

export function isCredentialScope(s: string): s is CredentialScope {
  return (CREDENTIAL_SCOPES as readonly string[]).includes(s);
}

export interface CredentialRecord {
  readonly id: string;
  readonly accountId: string;
  readonly createdBy: string | null;
  readonly name: string;
  readonly scopes: readonly CredentialScope[];
  readonly secretHint: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
  readonly lastUsedAt: Date | null;
}

/**
 * Who creates or revokes a credential, for the organization's audit log: the store writes the
 * `credential.created` / `credential.revoked` event in the change's own transaction.
 */
export interface CredentialActor {
  readonly kind: 'person' | 'credential' | 'system';
  readonly id: string | null;
  readonly requestId: string | null;
}

/** Storage port, implemented in src/store/repositories/credentials-repository.ts. */
export interface CredentialsRepository {
  /**
   * With `runToken` (an Idempotency-Key run), a run that already created its credential gets that
   * same credential back with the new secret in place of the old one, not a second credential.
   */
  create(c: {
    id: string;
    accountId: string;
    createdBy: string;
    name: string;
    scopes: readonly CredentialScope[];
    secretHash: string;
    secretHint: string;
    expiresAt: Date | null;
    runToken?: string | undefined;
    actor?: CredentialActor | undefined;
  }): Promise<CredentialRecord>;
  list(accountId: string): Promise<CredentialRecord[]>;
  findByHash(secretHash: string): Promise<CredentialRecord | null>;
  findById(id: string): Promise<CredentialRecord | null>;
  /** Sets revoked_at if not yet set; returns the record (null when not in this account). With `actor`, audited in the same transaction. */
  revoke(accountId: string, id: string, now: Date, actor?: CredentialActor): Promise<CredentialRecord | null>;
  touch(id: string, now: Date): Promise<void>;
  accountExists(accountId: string): Promise<boolean>;
}

/** A machine caller of either interface: a credential, or an access token of a credential, a session or a trusted issuer. */
export interface AgentIdentity {
  readonly accountId: string;
  readonly scopes: readonly CredentialScope[];
  /** The machine credential behind the call (directly or as the token's client), if any. */
  readonly credentialId: string | null;
  /** Stable description for audit: `credential:<id>` or `jwt:<iss>#<sub>`. */
  readonly subject: string;
  readonly via: 'credential' | 'jwt';
}

export type CredentialState = 'valid' | 'unknown' | 'expired' | 'revoked';

export function credentialState(c: CredentialRecord | null, now: Date): CredentialState {
  if (c === null) return 'unknown';
  if (c.revokedAt !== null) return 'revoked';
  if (c.expiresAt !== null && c.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'valid';
}

// Touching writes; once a minute per credential is enough for "last used".
const TOUCH_INTERVAL_MS = 60_000;

export class CredentialService {
  private readonly cache = new Map<string, { record: CredentialRecord | null; until: number }>();

  constructor(
    private readonly repo: CredentialsRepository,
    private readonly hashSecret: (secret: string) => string,
    private readonly newId: () => string,
    /** How long a looked-up credential may be served from memory (revocation by another process shows after this). */
    private readonly cacheMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * `runToken`: the Idempotency-Key run of the request. Its retry after a crash (the first secret
   * was never shown) rotates the secret of the credential that run created instead of adding one.
   */
  async create(
    accountId: string,
    userId: string,
    input: { name: string; scopes: readonly CredentialScope[]; expiresAt: Date | null },
    runToken?: string,
    actor?: CredentialActor,
  ): Promise<{ credential: CredentialRecord; secret: string }> {
    const secret = newSecret(AGENT_SECRET_PREFIX);
    const scopes = CREDENTIAL_SCOPES.filter((s) => input.scopes.includes(s));
    const credential = await this.repo.create({
      id: this.newId(),
      accountId,
      createdBy: userId,
      name: input.name,
      scopes,
      secretHash: this.hashSecret(secret),
      secretHint: secret.slice(-4),
      expiresAt: input.expiresAt,
      runToken,
      actor,
    });
    // A rotated secret must not leave the old one's lookup cached.
    if (runToken !== undefined) this.cache.clear();
    return { credential, secret };
  }

  list(accountId: string): Promise<CredentialRecord[]> {
    return this.repo.list(accountId);
  }

  async revoke(accountId: string, id: string, actor?: CredentialActor): Promise<CredentialRecord> {
    const r = await this.repo.revoke(accountId, id, this.now(), actor);
    if (r === null) throw fail(JOBS_ERRORS.CREDENTIAL_NOT_FOUND, `No agent credential ${id} in this account.`);
    this.cache.clear();
    return r;
  }

  /** Checks a `qrj_…` secret sent as a bearer token. */
  async checkSecret(secret: string): Promise<{ state: CredentialState | 'malformed'; credential?: CredentialRecord }> {
    if (!isWellFormed(secret, AGENT_SECRET_PREFIX)) return { state: 'malformed' };
    const c = await this.cached(`h:${this.hashSecret(secret)}`, (k) => this.repo.findByHash(k.slice(2)));
    const state = credentialState(c, this.now());
    if (state === 'valid' && c !== null) await this.maybeTouch(c);
    return c === null ? { state } : { state, credential: c };
  }

  /** Looks up a credential by id (a token's client): revocation and expiry apply to its tokens. */
  async checkId(id: string): Promise<{ state: CredentialState; credential?: CredentialRecord }> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return { state: 'unknown' };
    const c = await this.cached(`i:${id}`, (k) => this.repo.findById(k.slice(2)));
    const state = credentialState(c, this.now());
    return c === null ? { state } : { state, credential: c };
  }

  /** OAuth client authentication: the id and the secret must belong together. */
  async authenticateClient(clientId: string, clientSecret: string): Promise<{ state: CredentialState | 'malformed'; credential?: CredentialRecord }> {
    const r = await this.checkSecret(clientSecret);
    if (r.credential !== undefined && r.credential.id !== clientId.toLowerCase()) return { state: 'unknown' };
    return r;
  }

  /** Drops cached lookups (credentials revoked in bulk elsewhere: sign out everywhere, account closing). */
  forgetCached(): void {
    this.cache.clear();
  }

  accountExists(accountId: string): Promise<boolean> {
    return this.repo.accountExists(accountId);
  }

  private async cached(key: string, load: (key: string) => Promise<CredentialRecord | null>): Promise<CredentialRecord | null> {
    const nowMs = this.now().getTime();
    const hit = this.cache.get(key);
    if (hit !== undefined && hit.until > nowMs) return hit.record;
    const record = await load(key);
    if (this.cacheMs > 0) {
      this.cache.set(key, { record, until: nowMs + this.cacheMs });
      if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value as string);
    }
    return record;
  }

  private async maybeTouch(c: CredentialRecord): Promise<void> {
    const nowMs = this.now().getTime();
    if (c.lastUsedAt !== null && nowMs - c.lastUsedAt.getTime() < TOUCH_INTERVAL_MS) return;
    // Fire and forget: a lost "last used" write must not fail the request.
    (c as { lastUsedAt: Date | null }).lastUsedAt = new Date(nowMs);
    await this.repo.touch(c.id, new Date(nowMs)).catch(() => undefined);
  }
}
