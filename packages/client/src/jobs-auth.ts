/**
 * The Account Jobs credential: a bearer given as is (an access token, or a machine credential's
 * `qrj_` secret used directly), or OAuth 2.0 client credentials exchanged for a short-lived
 * access token that is renewed before it expires — one exchange at a time, however many
 * requests wait for it.
 */

export interface ClientCredentials {
  /** The credential's `client_id` (its `credential_id`). */
  clientId: string;
  /** Its `qrj_` secret, shown once when it was created. */
  clientSecret: string;
  /** Space-separated subset of the credential's scopes (default: all of them). */
  scope?: string | undefined;
}

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export type TokenExchange = (credentials: ClientCredentials) => Promise<AccessToken>;

export class JobsAuth {
  private staticToken: string | undefined;
  private credentials: ClientCredentials | undefined;
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly exchange: TokenExchange,
    /** Renew when less than this is left (capped at half the token's lifetime). */
    private readonly refreshMarginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  useToken(token: string | undefined): void {
    this.staticToken = token;
    this.credentials = undefined;
    this.current = undefined;
  }

  useClientCredentials(credentials: ClientCredentials | undefined): void {
    this.credentials = credentials;
    this.staticToken = undefined;
    this.current = undefined;
  }

  /** The bearer to send; `renew` forces a new exchange (after a 401). */
  async bearer(renew: boolean): Promise<{ token: string; renewable: boolean } | undefined> {
    if (this.credentials === undefined) return this.staticToken === undefined ? undefined : { token: this.staticToken, renewable: false };
    if (renew || this.current === undefined || this.now() >= this.current.expiresAt) this.current = undefined;
    const token = this.current?.token ?? (await this.renew());
    return { token, renewable: true };
  }

  private renew(): Promise<string> {
    const credentials = this.credentials;
    if (credentials === undefined) return Promise.reject(new Error('no client credentials'));
    this.pending ??= this.exchange(credentials)
      .then((t) => {
        const lifetimeMs = t.expires_in * 1000;
        const margin = Math.min(this.refreshMarginMs, lifetimeMs / 2);
        // Only keep it if the credentials were not replaced meanwhile.
        if (this.credentials === credentials) this.current = { token: t.access_token, expiresAt: this.now() + lifetimeMs - margin };
        return t.access_token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
