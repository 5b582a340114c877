/**
 * The HTTP side of IonQ's REST API v0.4 (https://docs.ionq.com/api-reference/v0.4), shared by
 * the job driver and the device-snapshot source: one request with the `Authorization: apiKey`
 * header and a timeout, classified so callers never see a thrown error. The body is parsed as
 * JSON when it is JSON and kept as text otherwise (a proxy's HTML error page stays readable).
 */

export interface IonqConnection {
  /** e.g. https://api.ionq.co/v0.4 */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  /** Injected for tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

export type IonqAnswer =
  /** The server answered (any status). `retryAfterMs` is Retry-After read as a delay, when sent. */
  | { readonly kind: 'ok'; readonly status: number; readonly body: unknown; readonly retryAfterMs: number | null }
  /** No answer within the timeout: the request may have been processed. */
  | { readonly kind: 'timeout' }
  /** The connection could not be opened: nothing was sent. */
  | { readonly kind: 'refused'; readonly message: string }
  /** The connection broke after it was opened: the request may have been processed. */
  | { readonly kind: 'dropped'; readonly message: string };

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), 86_400) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.min(at - now, 86_400_000));
}

/** IonQ's error body is `{error, message, statusCode}`; this makes one line of it (or of whatever came instead). */
export function describeIonqError(body: unknown): string {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const parts = [b['error'], b['message']].filter((x): x is string => typeof x === 'string');
    if (parts.length > 0) return parts.join(': ').slice(0, 500);
    return JSON.stringify(body).slice(0, 200);
  }
  return String(body).slice(0, 200);
}

export class IonqHttp {
  private readonly f: typeof fetch;

  constructor(readonly c: IonqConnection) {
    this.f = c.fetch ?? fetch;
  }

  async request(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<IonqAnswer> {
    try {
      const res = await this.f(`${this.c.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { authorization: `apiKey ${this.c.apiKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.c.timeoutMs),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        /* not JSON: keep the text for the message */
      }
      return { kind: 'ok', status: res.status, body: parsed, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) };
    } catch (e) {
      const err = e as { name?: string; message?: string; cause?: { code?: string; name?: string } };
      if (err.name === 'TimeoutError' || err.name === 'AbortError' || err.cause?.name === 'TimeoutError') return { kind: 'timeout' };
      const code = err.cause?.code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'refused', message: code };
      return { kind: 'dropped', message: err.message ?? 'connection failed' };
    }
  }
}

/** A plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
