import { pass, type CallOptions, type RequestFn } from '../call.js';
import type { AccessToken, ClientCredentials, JobsAuth } from '../jobs-auth.js';
import type { JsonBody, Operation, ResponseData } from '../types.js';

export type LoginResult = ResponseData<Operation<'/v1/auth/login', 'post'>>;
export type RegisterResult = ResponseData<Operation<'/v1/auth/register', 'post'>>;
export type AgentCredential = ResponseData<Operation<'/v1/auth/credentials', 'post'>>;
export type NewCredential = JsonBody<Operation<'/v1/auth/credentials', 'post'>>;

/** Account, session and credentials; also where the client's credentials are set. */
export function authArea(request: RequestFn, session: { get: () => string | undefined; set: (t: string | undefined) => void }, jobsAuth: JobsAuth) {
  return {
    /** The session token the client sends (after `login`, or as given). */
    get token(): string | undefined {
      return session.get();
    },
    /** Sends this session token from now on (`undefined`: none). */
    useToken(token: string | undefined): void {
      session.set(token);
    },
    /** Account Jobs: exchange these client credentials for access tokens, renewed before they expire. */
    useClientCredentials(credentials: ClientCredentials): void {
      jobsAuth.useSource('credentials', () => exchangeToken(request, credentials));
    },
    /**
     * Account Jobs for a person: exchanges the current session for a Jobs access token (RFC 8693)
     * and uses it from now on, renewed from the session before it expires. It ends with the session.
     */
    async exchangeSession(params: { scope?: string | undefined } = {}, options?: CallOptions): Promise<AccessToken> {
      const obtain = () => exchangeSessionToken(request, session.get(), params.scope, options);
      const token = await obtain();
      jobsAuth.remember('session', obtain, token);
      return token;
    },
    /** Account Jobs: send this bearer as is (an access token, or a `qrj_` machine credential secret). */
    useJobsToken(token: string | undefined): void {
      jobsAuth.useToken(token);
    },
    /** The Account Jobs bearer the next request would carry (exchanging credentials if needed). */
    async jobsToken(): Promise<string | undefined> {
      return (await jobsAuth.bearer(false))?.token;
    },
    async register(email: string, password: string, options?: CallOptions): Promise<RegisterResult> {
      return (await request('post', '/v1/auth/register', { body: { email, password }, ...pass(options), auth: 'none' })).data;
    },
    /** Logs in and keeps the session token for the following requests. */
    async login(email: string, password: string, options?: CallOptions): Promise<LoginResult> {
      const { data } = await request('post', '/v1/auth/login', { body: { email, password }, ...pass(options), auth: 'none' });
      session.set(data.token);
      return data;
    },
    /**
     * Completes a login that failed with `MFA_REQUIRED` (its `details.challenge_id`) with a TOTP code
     * or a recovery code, and keeps the new session token like `login`.
     */
    async completeMfaLogin(challengeId: string, factor: { code: string } | { recovery_code: string }, options?: CallOptions): Promise<LoginResult> {
      const { data } = await request('post', '/v1/auth/login/mfa', { body: { challenge_id: challengeId, ...factor }, ...pass(options), auth: 'none' });
      session.set(data.token);
      return data;
    },
    /** Revokes the session and forgets its token. */
    async logout(options?: CallOptions) {
      const { data } = await request('post', '/v1/auth/logout', pass(options));
      session.set(undefined);
      jobsAuth.sessionEnded();
      return data;
    },
    async me(options?: CallOptions) {
      return (await request('get', '/v1/auth/me', pass(options))).data;
    },
    async diagnostics(options?: CallOptions) {
      return (await request('get', '/v1/auth/diagnostics', pass(options))).data;
    },
    /** A machine credential for the Account Jobs interface; `secret` is in this answer only. */
    async createCredential(body: NewCredential, options?: CallOptions): Promise<AgentCredential> {
      return (await request('post', '/v1/auth/credentials', { body, ...pass(options) })).data;
    },
    async listCredentials(options?: CallOptions) {
      return (await request('get', '/v1/auth/credentials', pass(options))).data;
    },
    async revokeCredential(credentialId: string, options?: CallOptions) {
      return (await request('delete', '/v1/auth/credentials/{credential_id}', { params: { credential_id: credentialId }, ...pass(options) })).data;
    },
    /** One OAuth client-credentials exchange, without keeping the token (`useClientCredentials` keeps and renews it). */
    async issueAccessToken(credentials: ClientCredentials, options?: CallOptions): Promise<AccessToken> {
      return exchangeToken(request, credentials, options);
    },
  };
}

export async function exchangeToken(request: RequestFn, credentials: ClientCredentials, options?: CallOptions): Promise<AccessToken> {
  const body = {
    grant_type: 'client_credentials' as const,
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    ...(credentials.scope === undefined ? {} : { scope: credentials.scope }),
  };
  return (await request('post', '/v1/oauth/token', { body, ...pass(options), auth: 'none' })).data;
}

const SESSION_TOKEN_TYPE = 'urn:qrail:params:oauth:token-type:session';

export async function exchangeSessionToken(request: RequestFn, sessionToken: string | undefined, scope: string | undefined, options?: CallOptions): Promise<AccessToken> {
  if (sessionToken === undefined) throw new Error('no session to exchange: log in first (auth.login or auth.useToken)');
  const body = {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange' as const,
    subject_token: sessionToken,
    subject_token_type: SESSION_TOKEN_TYPE,
    ...(scope === undefined ? {} : { scope }),
  } as const;
  return (await request('post', '/v1/oauth/token', { body, ...pass(options), auth: 'none' })).data;
}
