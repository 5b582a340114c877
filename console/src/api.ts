/**
 * The console's one way to the API. Every call goes through the typed client of packages/client
 * once wired (see console/README.md); errors carry the API's code, message and request id.
 */
import { loadSession } from './session.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: unknown,
  ) {
    super(message);
  }
}

type Listener = () => void;
const expiredListeners = new Set<Listener>();

/** Called when the API says the session is no longer valid (expired, revoked): back to sign-in. */
export function onSessionExpired(l: Listener): () => void {
  expiredListeners.add(l);
  return () => expiredListeners.delete(l);
}

interface CallOptions {
  readonly body?: unknown;
  readonly query?: Record<string, string | number | undefined>;
  readonly token?: string;
  readonly signal?: AbortSignal;
  readonly idempotencyKey?: string;
}

export async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = opts.token ?? loadSession()?.token;
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }), ...(opts.signal === undefined ? {} : { signal: opts.signal }) });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached. Check your connection and try again.', undefined, undefined);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const o = (json ?? {}) as Record<string, unknown>;
  if (!res.ok || o['status'] === 'error') {
    const err = (o['error'] ?? {}) as Record<string, unknown>;
    const meta = (o['meta'] ?? {}) as Record<string, unknown>;
    const requestId = (typeof meta['request_id'] === 'string' ? meta['request_id'] : typeof o['request_id'] === 'string' ? o['request_id'] : res.headers.get('x-request-id')) ?? undefined;
    const code = typeof err['code'] === 'string' ? err['code'] : `HTTP_${res.status}`;
    const e = new ApiError(res.status, code, typeof err['message'] === 'string' ? err['message'] : res.statusText, requestId, err['details']);
    if (res.status === 401 && token !== undefined && opts.token === undefined) for (const l of expiredListeners) l();
    throw e;
  }
  // The platform answers in the envelope; the Account Jobs interface answers with the resource itself.
  return (o['status'] === 'ok' && 'data' in o ? o['data'] : json) as T;
}

export const newIdempotencyKey = (): string => crypto.randomUUID();
