/**
 * The HTTP side of IBM Quantum Runtime (https://quantum.cloud.ibm.com/docs/api/qiskit-runtime-rest):
 * an IBM Cloud API key is exchanged at IAM (`POST {iam}/identity/token`, form body
 * `grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=…`) for a bearer token that lives
 * about an hour; every Runtime call sends it with the instance's CRN (`Service-CRN`) and the
 * API version header. The token is cached and fetched again shortly before it expires, or once
 * when Runtime answers 401 (a token revoked or expired early).
 *
 * Answers are classified, never thrown: `ok` (any HTTP status, body parsed when JSON, with
 * Retry-After), `timeout` (sent, no answer in time: the request may have taken effect),
 * `refused` (no connection: nothing was sent) or `dropped` (the connection failed mid-way).
 */
export interface IbmRuntimeClientSettings {
  readonly apiKey: string;
  readonly instance: string;
  /** e.g. https://quantum.cloud.ibm.com/api (paths below start with /v1). */
  readonly baseUrl: string;
  /** e.g. https://iam.cloud.ibm.com */
  readonly iamUrl: string;
  readonly timeoutMs: number;
  /** The IBM-API-Version header (default IBM_API_VERSION; the deployment sets IBM_QUANTUM_API_VERSION). */
  readonly apiVersion?: string;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
}

/**
 * The IBM-API-Version sent when none is configured: the one qiskit-ibm-runtime 0.50 sends. The
 * fields this adapter reads (job `state.status`, Sampler V2 results, backend configuration and
 * properties) are the same under 2025-05-01; docs/execution.md says how to move it.
 */
export const IBM_API_VERSION = '2026-04-15';

export type IbmHttp =
  | { readonly kind: 'ok'; readonly status: number; readonly body: unknown; readonly retryAfterMs: number | null }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'dropped'; readonly message: string };

/** Refresh this long before the token's stated expiry, so a request never carries a token that dies in flight. */
const EXPIRY_MARGIN_MS = 60_000;

/** Retry-After as seconds or an HTTP date, in ms (null when absent or unreadable). */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function describeIbmError(body: unknown): string {
  if (body !== null && typeof body === 'object') {
    const b = body as { errors?: Array<{ code?: unknown; message?: unknown }>; message?: unknown; errorCode?: unknown; errorMessage?: unknown };
    const first = Array.isArray(b.errors) ? b.errors[0] : undefined;
    // Runtime: {errors: [{code, message}]}; IAM: {errorCode, errorMessage}.
    const parts = [first?.code ?? b.errorCode, first?.message ?? b.message ?? b.errorMessage].filter((x) => typeof x === 'string' || typeof x === 'number');
    if (parts.length > 0) return parts.join(': ');
    return JSON.stringify(body).slice(0, 200);
  }
  return String(body).slice(0, 200);
}

export class IbmRuntimeClient {
  private token: { value: string; expiresAt: number } | undefined;
  private readonly f: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly s: IbmRuntimeClientSettings) {
    this.f = s.fetch ?? fetch;
    this.now = s.now ?? Date.now;
  }

  get timeoutMs(): number {
    return this.s.timeoutMs;
  }

  private async send(url: string, init: RequestInit): Promise<IbmHttp> {
    try {
      const res = await this.f(url, { ...init, signal: AbortSignal.timeout(this.s.timeoutMs) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        /* not JSON: keep the text (a proxy's error page, a malformed answer) */
      }
      return { kind: 'ok', status: res.status, body, retryAfterMs: retryAfterMs(res.headers.get('retry-after'), this.now()) };
    } catch (e) {
      const err = e as { name?: string; message?: string; cause?: { code?: string; name?: string } };
      if (err.name === 'TimeoutError' || err.name === 'AbortError' || err.cause?.name === 'TimeoutError') return { kind: 'timeout' };
      const code = err.cause?.code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'refused', message: code };
      return { kind: 'dropped', message: err.message ?? 'connection failed' };
    }
  }

  /** A bearer token: the cached one, or a new one from IAM. Null with the IAM answer when IAM refused or failed. */
  private async bearer(force: boolean): Promise<{ token: string } | { failure: IbmHttp }> {
    const t = this.token;
    if (!force && t !== undefined && t.expiresAt - EXPIRY_MARGIN_MS > this.now()) return { token: t.value };
    const form = new URLSearchParams({ grant_type: 'urn:ibm:params:oauth:grant-type:apikey', apikey: this.s.apiKey });
    const r = await this.send(`${this.s.iamUrl.replace(/\/+$/, '')}/identity/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    // IAM refusing the key (4xx) is an authentication failure of the call, whatever status IAM used.
    if (r.kind === 'ok' && r.status >= 400 && r.status < 500)
      return { failure: { kind: 'ok', status: 401, body: { message: `IAM refused the API key: ${describeIbmError(r.body)}` }, retryAfterMs: null } };
    if (r.kind !== 'ok' || r.status !== 200) return { failure: r };
    const b = r.body as { access_token?: unknown; expires_in?: unknown; expiration?: unknown } | null;
    if (b === null || typeof b !== 'object' || typeof b.access_token !== 'string' || b.access_token === '') {
      return { failure: { kind: 'ok', status: 502, body: { message: 'IAM answered without an access_token' }, retryAfterMs: null } };
    }
    // `expiration` is epoch seconds; `expires_in` seconds from now; without either assume IAM's documented hour.
    const expiresAt = typeof b.expiration === 'number' ? b.expiration * 1000 : this.now() + (typeof b.expires_in === 'number' ? b.expires_in : 3600) * 1000;
    this.token = { value: b.access_token, expiresAt };
    return { token: b.access_token };
  }

  /** One Runtime call; a 401 gets one retry with a fresh token. An IAM failure is returned as the call's answer. */
  async request(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<IbmHttp> {
    for (let attempt = 0; ; attempt++) {
      const b = await this.bearer(attempt > 0);
      if ('failure' in b) return b.failure;
      const r = await this.send(`${this.s.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${b.token}`,
          'service-crn': this.s.instance,
          'ibm-api-version': this.s.apiVersion ?? IBM_API_VERSION,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (r.kind === 'ok' && r.status === 401 && attempt === 0) {
        this.token = undefined;
        continue;
      }
      return r;
    }
  }
}
