/**
 * OAuth 2 access tokens for the Jobs audience (RFC 9068 JWT profile): the built-in issuer
 * signs short-lived ES256 tokens for machine credentials (client-credentials grant), and an
 * external issuer can be trusted through its JWKS URL. Verification says *why* a token is
 * refused, so the 401 can carry `error="invalid_token"` with a precise description.
 */
import {
  SignJWT,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { isCredentialScope, type AgentIdentity, type CredentialRecord, type CredentialScope, type CredentialService } from './credentials.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: 'ES256';
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** Storage port for the issuer's keys (shared by every process of a deployment). */
export interface SigningKeyStore {
  /** Active keys, oldest first. */
  load(): Promise<SigningKey[]>;
  insertIfAbsent(k: SigningKey): Promise<void>;
}

export interface JobsTokenSettings {
  /** `iss` of the built-in issuer (the public base URL). */
  readonly issuer: string;
  /** The Jobs audience (`aud`) every accepted token must carry. */
  readonly audience: string;
  readonly ttlSeconds: number;
  readonly external?: {
    readonly issuer: string;
    readonly audience: string;
    readonly jwksUrl: string;
    /** Claim that names the qrail account when the token's client is not a local credential. */
    readonly accountClaim: string;
  };
}

/**
 * The sessions behind exchanged tokens (RFC 8693): a person's session traded for a short Jobs
 * access token stays tied to it, so signing out or the session's expiry ends the token too.
 */
export interface SessionLookup {
  /** The session's account when it is valid now; null otherwise (unknown, expired, revoked). */
  activeAccount(sessionId: string): Promise<string | null>;
}

/** client_id of a token obtained by exchanging a session: never a credential id (those are UUIDs). */
export const SESSION_CLIENT_PREFIX = 'session:';

export type TokenRefusal = 'malformed' | 'expired' | 'revoked' | 'unknown' | 'wrong_audience' | 'wrong_issuer' | 'bad_signature' | 'no_account';

export type TokenCheck = { readonly ok: true; readonly agent: AgentIdentity } | { readonly ok: false; readonly reason: TokenRefusal; readonly description: string };

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

function scopesOf(p: JWTPayload): CredentialScope[] {
  const raw = p['scope'] ?? p['scp'];
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
  return [...new Set(list.filter(isCredentialScope))];
}

function refusal(e: unknown): { reason: TokenRefusal; description: string } {
  if (e instanceof errors.JWTExpired) return { reason: 'expired', description: 'The access token has expired.' };
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return { reason: 'wrong_audience', description: 'The access token is not for the Jobs audience.' };
    if (e.claim === 'iss') return { reason: 'wrong_issuer', description: 'The access token is from an issuer this service does not trust.' };
    return { reason: 'malformed', description: `The access token claim "${e.claim}" is invalid.` };
  }
  if (e instanceof errors.JWSSignatureVerificationFailed || e instanceof errors.JWKSNoMatchingKey) {
    return { reason: 'bad_signature', description: 'The access token signature does not verify.' };
  }
  return { reason: 'malformed', description: 'The access token is malformed.' };
}

// How long a token whose ES256 signature verified is trusted without verifying it again
// (never past its exp). Verification costs ~0.1–1 ms of CPU per request; revocation is still
// checked on every call through the credential (see docs/decisions/jobs-submission-path.md).
const VERIFIED_CACHE_MS = 60_000;
const VERIFIED_CACHE_MAX = 10_000;

export class JobsTokens {
  private readonly verified = new Map<string, { payload: JWTPayload; until: number }>();
  private keys: SigningKey[] | undefined;
  private localSet: JWTVerifyGetKey | undefined;
  private readonly remoteSet: JWTVerifyGetKey | undefined;

  constructor(
    private readonly settings: JobsTokenSettings,
    private readonly store: SigningKeyStore,
    private readonly credentials: CredentialService,
    private readonly newId: () => string,
    private readonly now: () => Date = () => new Date(),
    private readonly sessions?: SessionLookup,
  ) {
    const ext = settings.external;
    this.remoteSet = ext === undefined ? undefined : createRemoteJWKSet(new URL(ext.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  }

  get audience(): string {
    return this.settings.audience;
  }

  /** Issues an access token for a credential; `scopes` (optional) narrows the credential's scopes. */
  async issue(c: CredentialRecord, scopes?: readonly CredentialScope[]): Promise<{ accessToken: string; expiresIn: number; scope: string }> {
    const key = (await this.signingKeys())[0];
    if (key === undefined) throw new Error('no signing key');
    const granted = scopes === undefined ? [...c.scopes] : c.scopes.filter((s) => scopes.includes(s));
    const nowS = Math.floor(this.now().getTime() / 1000);
    const exp = Math.min(nowS + this.settings.ttlSeconds, c.expiresAt === null ? Number.MAX_SAFE_INTEGER : Math.floor(c.expiresAt.getTime() / 1000));
    const scope = granted.join(' ');
    const accessToken = await new SignJWT({ scope, client_id: c.id, account_id: c.accountId })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(c.id)
      .setIssuedAt(nowS)
      .setExpirationTime(exp)
      .setJti(this.newId())
      .sign(await importJWK(key.privateJwk, key.alg));
    return { accessToken, expiresIn: exp - nowS, scope };
  }

  /**
   * Token exchange: a Jobs access token for a person's valid session, on the session's account,
   * expiring with the session at the latest. `client_id` names the session, `sub` the user.
   */
  async issueForSession(
    s: { readonly sessionId: string; readonly userId: string; readonly accountId: string; readonly expiresAt: Date },
    scopes: readonly CredentialScope[],
  ): Promise<{ accessToken: string; expiresIn: number; scope: string }> {
    const key = (await this.signingKeys())[0];
    if (key === undefined) throw new Error('no signing key');
    const nowS = Math.floor(this.now().getTime() / 1000);
    const exp = Math.min(nowS + this.settings.ttlSeconds, Math.floor(s.expiresAt.getTime() / 1000));
    const scope = scopes.join(' ');
    const accessToken = await new SignJWT({ scope, client_id: `${SESSION_CLIENT_PREFIX}${s.sessionId}`, account_id: s.accountId })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(`user:${s.userId}`)
      .setIssuedAt(nowS)
      .setExpirationTime(exp)
      .setJti(this.newId())
      .sign(await importJWK(key.privateJwk, key.alg));
    return { accessToken, expiresIn: Math.max(0, exp - nowS), scope };
  }

  /** The public keys of the built-in issuer, as served at /.well-known/jwks.json. */
  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.signingKeys()).map((k) => ({ ...k.publicJwk, kid: k.kid, alg: k.alg, use: 'sig' })) };
  }

  async verify(token: string): Promise<TokenCheck> {
    let iss: string | undefined;
    try {
      decodeProtectedHeader(token);
      iss = decodeJwt(token).iss;
    } catch {
      return { ok: false, reason: 'malformed', description: 'The access token is not a JWT.' };
    }
    const ext = this.settings.external;
    if (iss === this.settings.issuer) return this.verifyLocal(token);
    if (ext !== undefined && iss === ext.issuer && this.remoteSet !== undefined) return this.verifyExternal(token, ext, this.remoteSet);
    return { ok: false, reason: 'wrong_issuer', description: 'The access token is from an issuer this service does not trust.' };
  }

  private async verifyLocal(token: string): Promise<TokenCheck> {
    let payload: JWTPayload;
    try {
      payload = await this.localPayload(token);
    } catch (e) {
      return { ok: false, ...refusal(e) };
    }
    const clientId = payload['client_id'];
    if (typeof clientId !== 'string') return { ok: false, reason: 'malformed', description: 'The access token has no client_id.' };
    if (clientId.startsWith(SESSION_CLIENT_PREFIX)) return this.sessionAgent(clientId.slice(SESSION_CLIENT_PREFIX.length), payload);
    const c = await this.credentials.checkId(clientId);
    if (c.state !== 'valid' || c.credential === undefined) {
      const reason = c.state === 'valid' ? 'unknown' : c.state;
      return { ok: false, reason, description: `The credential behind this access token is ${reason === 'unknown' ? 'unknown' : reason}.` };
    }
    const scopes = scopesOf(payload).filter((s) => c.credential?.scopes.includes(s));
    return { ok: true, agent: { accountId: c.credential.accountId, scopes, credentialId: c.credential.id, subject: `credential:${c.credential.id}`, via: 'jwt' } };
  }

  private async sessionAgent(sessionId: string, payload: JWTPayload): Promise<TokenCheck> {
    const accountId = this.sessions === undefined || !UUID.test(sessionId) ? null : await this.sessions.activeAccount(sessionId);
    if (accountId === null || accountId !== payload['account_id']) {
      return { ok: false, reason: 'revoked', description: 'The session behind this access token has ended (signed out or expired).' };
    }
    return { ok: true, agent: { accountId, scopes: scopesOf(payload), credentialId: null, subject: `session:${sessionId}`, via: 'jwt' } };
  }

  private async verifyExternal(token: string, ext: NonNullable<JobsTokenSettings['external']>, keys: JWTVerifyGetKey): Promise<TokenCheck> {
    let payload: JWTPayload;
    try {
      payload = (await jwtVerify(token, keys, { issuer: ext.issuer, audience: ext.audience, clockTolerance: 5, requiredClaims: ['exp', 'sub'] })).payload;
    } catch (e) {
      return { ok: false, ...refusal(e) };
    }
    const scopes = scopesOf(payload);
    const clientId = payload['client_id'];
    // A client registered here as a credential keeps its revocation and its account.
    if (typeof clientId === 'string' && UUID.test(clientId)) {
      const c = await this.credentials.checkId(clientId);
      if (c.credential !== undefined) {
        if (c.state !== 'valid') return { ok: false, reason: c.state === 'unknown' ? 'unknown' : c.state, description: `The credential behind this access token is ${c.state}.` };
        return {
          ok: true,
          agent: {
            accountId: c.credential.accountId,
            scopes: scopes.filter((s) => c.credential?.scopes.includes(s)),
            credentialId: c.credential.id,
            subject: `jwt:${ext.issuer}#${payload.sub ?? ''}`,
            via: 'jwt',
          },
        };
      }
    }
    const account = payload[ext.accountClaim];
    if (typeof account !== 'string' || !UUID.test(account) || !(await this.credentials.accountExists(account))) {
      return { ok: false, reason: 'no_account', description: `The access token does not name a qrail account in the "${ext.accountClaim}" claim.` };
    }
    return { ok: true, agent: { accountId: account.toLowerCase(), scopes, credentialId: null, subject: `jwt:${ext.issuer}#${payload.sub ?? ''}`, via: 'jwt' } };
  }

  /** The payload of a built-in token, from the cache of verified tokens when it is there. */
  private async localPayload(token: string): Promise<JWTPayload> {
    const nowMs = this.now().getTime();
    const hit = this.verified.get(token);
    if (hit !== undefined && hit.until > nowMs) return hit.payload;
    const { payload } = await this.verifyWithLocalKeys(token);
    this.verified.set(token, { payload, until: Math.min(nowMs + VERIFIED_CACHE_MS, (payload.exp ?? 0) * 1000) });
    if (this.verified.size > VERIFIED_CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    return payload;
  }

  private async verifyWithLocalKeys(token: string) {
    const opts = { issuer: this.settings.issuer, audience: this.settings.audience, typ: 'at+jwt', algorithms: ['ES256'], clockTolerance: 5, requiredClaims: ['exp', 'sub', 'client_id', 'jti'] };
    await this.signingKeys();
    try {
      return await jwtVerify(token, this.localSet as JWTVerifyGetKey, opts);
    } catch (e) {
      // A key created by another process since we loaded ours: reload once.
      if (!(e instanceof errors.JWKSNoMatchingKey)) throw e;
      this.keys = undefined;
      await this.signingKeys();
      return jwtVerify(token, this.localSet as JWTVerifyGetKey, opts);
    }
  }

  private async signingKeys(): Promise<SigningKey[]> {
    if (this.keys !== undefined) return this.keys;
    let keys = await this.store.load();
    if (keys.length === 0) {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      const kid = this.newId();
      await this.store.insertIfAbsent({ kid, alg: 'ES256', privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) });
      keys = await this.store.load();
    }
    this.keys = keys;
    this.localSet = createLocalJWKSet({ keys: keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: k.alg })) });
    return keys;
  }
}
