import { errorFromBody } from './errors.js';
import { KEYED_POSTS, mayRetry } from './idempotency.js';

/**
 * One HTTP exchange with the service: the URL from the path template, the credential the path
 * takes, the idempotency key a money-moving POST needs, and bounded retries with backoff on
 * 429 / 503 / network failures (and a keyed request's "still running" 409) for the requests that
 * may be repeated
 * (docs/decisions/client-generation.md). Success answers come back parsed; failures throw
 * QrailApiError.
 */

export interface RetryOptions {
  /** Further attempts after the first (default 3; 0 disables retrying). */
  maxRetries?: number;
  /** First backoff delay, doubled each attempt, with jitter (default 250 ms). */
  baseDelayMs?: number;
  /** Largest backoff delay (default 8 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown (default 60 s). */
  maxRetryAfterMs?: number;
}

/** Which credential a request carries: the session token, the Account Jobs bearer, or none. */
export type AuthMode = 'session' | 'jobs' | 'none';

export interface RequestOptions {
  /** Path parameters, substituted into `{name}` (URL-encoded). */
  params?: Record<string, string | number> | undefined;
  /** Query parameters; `undefined` members are left out, arrays repeated. */
  query?: Record<string, unknown> | undefined;
  /** A JSON body. */
  body?: unknown;
  /** An x-www-form-urlencoded body instead (OAuth token, sandbox pages). */
  form?: Record<string, string | undefined> | undefined;
  headers?: Record<string, string> | undefined;
  /** Default: `jobs` on the Account Jobs interface, else `session` (the session token, or the machine credential when there is no session). */
  auth?: AuthMode | undefined;
  /** The Idempotency-Key to send (default: a new one on the POSTs that take it). */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /** `manual` keeps a redirect (303) as the answer instead of following it. */
  redirect?: 'follow' | 'manual' | undefined;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  /** The body (for the platform: the envelope's `data`). */
  data: T;
  requestId: string | undefined;
  /** `Idempotent-Replayed: true`: the server answered a retry with the first answer. */
  replayed: boolean;
}

export interface TransportConfig {
  baseUrl: string;
  fetch: typeof fetch;
  headers: Record<string, string>;
  retry: Required<RetryOptions>;
  timeoutMs: number | undefined;
  newKey: () => string;
  sessionToken: () => string | undefined;
  /** The Jobs bearer; `renew` after a 401 asks for a fresh one (undefined: none to renew). */
  jobsBearer: (renew: boolean) => Promise<{ token: string; renewable: boolean } | undefined>;
}

// 409s that mean "the first attempt with this key is still running": a retry (of a keyed request) gets its answer.
const STILL_RUNNING: ReadonlySet<string> = new Set(['IDEMPOTENCY_KEY_IN_FLIGHT', 'EXECUTION_CLIENT_TOKEN_IN_PROGRESS']);

const JOBS_PATHS = /^\/v1\/(jobs(\/|$)|account\/balance$)/;

export function isJobsPath(path: string): boolean {
  return JOBS_PATHS.test(path);
}

function buildUrl(base: string, template: string, params: RequestOptions['params'], query: RequestOptions['query']): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = params?.[name];
    if (v === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(v));
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) qs.append(k, typeof item === 'object' ? JSON.stringify(item) : String(item));
  }
  const q = qs.toString();
  return `${base.replace(/\/+$/, '')}${path}${q === '' ? '' : `?${q}`}`;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function backoff(attempt: number, r: Required<RetryOptions>): number {
  const full = Math.min(r.maxDelayMs, r.baseDelayMs * 2 ** attempt);
  return Math.round(full / 2 + (Math.random() * full) / 2);
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// AbortSignal.any needs Node 20.3; this works on every Node 20.
function withTimeout(signal: AbortSignal | undefined, timeoutMs: number | undefined): { signal: AbortSignal | undefined; done: () => void } {
  if (timeoutMs === undefined) return { signal, done: () => undefined };
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  const onAbort = () => ctl.abort(signal?.reason);
  if (signal?.aborted === true) ctl.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctl.signal,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return undefined;
  return (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

/** Sends one logical request (with its retries) and returns the parsed success answer. */
export async function send(cfg: TransportConfig, method: string, template: string, opts: RequestOptions = {}): Promise<ApiResponse<unknown>> {
  const m = method.toUpperCase();
  const url = buildUrl(cfg.baseUrl, template, opts.params, opts.query);
  const keyedBy = m === 'POST' ? KEYED_POSTS[template] : undefined;
  const headers: Record<string, string> = { accept: 'application/json', ...cfg.headers, ...opts.headers };
  let body: string | undefined;
  if (opts.form !== undefined) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) if (v !== undefined) form.append(k, v);
    body = form.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  // One key for the whole call: every retry below repeats it, so the server acts once.
  if (keyedBy === 'header' || opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey ?? cfg.newKey();
  const auth = opts.auth ?? (isJobsPath(template) ? 'jobs' : 'session');
  const retryable = mayRetry(m, template, keyedBy !== undefined || opts.idempotencyKey !== undefined);

  let renewed = false;
  for (let attempt = 0; ; attempt++) {
    let renewable = false;
    const session = auth === 'session' ? cfg.sessionToken() : undefined;
    if (session !== undefined) {
      headers['authorization'] = `Bearer ${session}`;
    } else if (auth === 'jobs' || auth === 'session') {
      // Without a person's session, a platform call goes with the machine credential: the
      // platform accepts it within its scopes (403 INSUFFICIENT_SCOPE names a missing one).
      const bearer = await cfg.jobsBearer(false);
      if (bearer !== undefined) headers['authorization'] = `Bearer ${bearer.token}`;
      renewable = bearer?.renewable === true;
    }
    const t = withTimeout(opts.signal, cfg.timeoutMs);
    let res: Response;
    try {
      res = await cfg.fetch(url, { method: m, headers, redirect: opts.redirect ?? 'follow', ...(body === undefined ? {} : { body }), ...(t.signal === undefined ? {} : { signal: t.signal }) });
    } catch (err) {
      t.done();
      // The caller's abort ends the call; a network failure is retried like a 503.
      if (opts.signal?.aborted === true || !retryable || attempt >= cfg.retry.maxRetries) throw err;
      await sleep(backoff(attempt, cfg.retry), opts.signal);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = await readBody(res);
    } finally {
      t.done();
    }
    const requestId = res.headers.get('x-request-id') ?? undefined;
    if (res.status < 400) {
      const data = typeof parsed === 'object' && parsed !== null && 'status' in parsed && parsed.status === 'ok' && 'data' in parsed ? parsed.data : parsed;
      return { status: res.status, headers: res.headers, data, requestId, replayed: res.headers.get('idempotent-replayed') === 'true' };
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    const error = errorFromBody(parsed, { status: res.status, method: m, path: template, headerRequestId: requestId, retryAfterMs });
    // An expired or rotated access token: obtain a new one once and ask again. When none can be
    // had (the session it came from has ended), the refusal is the answer.
    if (res.status === 401 && renewable && !renewed) {
      renewed = true;
      await cfg.jobsBearer(true).catch(() => {
        throw error;
      });
      attempt--;
      continue;
    }
    const transient = res.status === 429 || res.status === 503 || (res.status === 409 && STILL_RUNNING.has(error.code));
    if (transient && retryable && attempt < cfg.retry.maxRetries && (retryAfterMs ?? 0) <= cfg.retry.maxRetryAfterMs) {
      await sleep(retryAfterMs ?? backoff(attempt, cfg.retry), opts.signal);
      continue;
    }
    throw error;
  }
}
