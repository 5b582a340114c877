/**
 * The Account Jobs credential: a bearer given as is (an access token, or a machine credential's
 * `qrj_` secret used directly), or an access token obtained at the token endpoint — by OAuth 2.0
 * client credentials, or by exchanging the person's session (RFC 8693) — and renewed before it
 * expires, one exchange at a time however many requests wait for it.
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

/** Where renewed access tokens come from: client credentials, or the current session. */
type Source = { kind: 'credentials' | 'session'; obtain: () => Promise<AccessToken> };

export class JobsAuth {
  private staticToken: string | undefined;
  private source: Source | undefined;
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    /** Renew when less than this is left (capped at half the token's lifetime). */
    private readonly refreshMarginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  useToken(token: string | undefined): void {
    this.staticToken = token;
    this.source = undefined;
    this.current = undefined;
  }

  /** Access tokens from `obtain` (a token-endpoint call), renewed before they expire. */
  useSource(kind: Source['kind'], obtain: () => Promise<AccessToken>): void {
    this.source = { kind, obtain };
    this.staticToken = undefined;
    this.current = undefined;
  }

  /** Keeps a token just obtained from `obtain` (so the first request does not exchange again). */
  remember(kind: Source['kind'], obtain: () => Promise<AccessToken>, token: AccessToken): void {
    this.useSource(kind, obtain);
    this.keep(this.source, token);
  }

  /** After sign-out: a token exchanged from the session has ended with it. */
  sessionEnded(): void {
    if (this.source?.kind === 'session') this.useToken(undefined);
  }

  /** The bearer to send; `renew` forces a new exchange (after a 401). */
  async bearer(renew: boolean): Promise<{ token: string; renewable: boolean } | undefined> {
    if (this.source === undefined) return this.staticToken === undefined ? undefined : { token: this.staticToken, renewable: false };
    if (renew || this.current === undefined || this.now() >= this.current.expiresAt) this.current = undefined;
    const token = this.current?.token ?? (await this.renew());
    return { token, renewable: true };
  }

  private keep(source: Source | undefined, t: AccessToken): void {
    const lifetimeMs = t.expires_in * 1000;
    const margin = Math.min(this.refreshMarginMs, lifetimeMs / 2);
    // Only if the source was not replaced meanwhile.
    if (source !== undefined && this.source === source) this.current = { token: t.access_token, expiresAt: this.now() + lifetimeMs - margin };
  }

  private renew(): Promise<string> {
    const source = this.source;
    if (source === undefined) return Promise.reject(new Error('no Jobs credential to renew'));
    this.pending ??= source
      .obtain()
      .then((t) => {
        this.keep(source, t);
        return t.access_token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
