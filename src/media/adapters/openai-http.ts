import { UpstreamFailure } from '../ports.js';

export interface HttpCallOptions {
  readonly apiKey: string;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** Replaceable for tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Uint8Array;
}

/** `Retry-After` as seconds (delta or HTTP date). */
function retryAfterSeconds(h: string | null): number | undefined {
  if (h === null) return undefined;
  if (/^\d+$/.test(h.trim())) return Number(h.trim());
  const t = Date.parse(h);
  return Number.isNaN(t) ? undefined : Math.max(0, (t - Date.now()) / 1000);
}

async function readLimited(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new UpstreamFailure('too_large', `response of ${declared} bytes exceeds ${max}`, { status: res.status });
  }
  if (res.body === null) return new Uint8Array(0);
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new UpstreamFailure('too_large', `response exceeds ${max} bytes`, { status: res.status });
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** OpenAI-style `{error: {message, type, code}}`, tolerating other shapes. */
function errorFields(body: Uint8Array): { upstreamMessage?: string; upstreamCode?: string; upstreamType?: string } {
  try {
    const j = JSON.parse(new TextDecoder().decode(body)) as unknown;
    const e = (j as { error?: unknown }).error;
    const o = (typeof e === 'object' && e !== null ? e : j) as Record<string, unknown>;
    const message = typeof e === 'string' ? e : o['message'];
    return {
      ...(typeof message === 'string' ? { upstreamMessage: message } : {}),
      ...(typeof o['code'] === 'string' || typeof o['code'] === 'number' ? { upstreamCode: String(o['code']) } : {}),
      ...(typeof o['type'] === 'string' ? { upstreamType: o['type'] } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * POSTs JSON to an OpenAI-compatible endpoint. One deadline (AbortController) covers
 * connecting, the status line and reading the whole body. Non-2xx answers, timeouts and
 * network failures are thrown as `UpstreamFailure`.
 */
export async function postJson(url: string, payload: unknown, opts: HttpCallOptions): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  const doFetch = opts.fetch ?? fetch;
  try {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, audio/wav', authorization: `Bearer ${opts.apiKey}` },
        body: JSON.stringify(payload),
        signal: controller.signal,
        redirect: 'error',
      });
    } catch (e) {
      if (controller.signal.aborted) throw new UpstreamFailure('timeout', `no answer within ${opts.timeoutMs} ms`);
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new UpstreamFailure('unreachable', `could not connect${cause === undefined ? '' : ` (${cause})`}`);
    }
    let body: Uint8Array;
    try {
      body = await readLimited(res, opts.maxResponseBytes);
    } catch (e) {
      if (e instanceof UpstreamFailure) throw e;
      if (controller.signal.aborted) throw new UpstreamFailure('timeout', `no complete answer within ${opts.timeoutMs} ms`);
      throw new UpstreamFailure('unreachable', 'the connection broke while reading the answer', { status: res.status });
    }
    if (res.status < 200 || res.status > 299) {
      const ra = retryAfterSeconds(res.headers.get('retry-after'));
      throw new UpstreamFailure('http', `HTTP ${res.status}`, { status: res.status, ...errorFields(body), ...(ra === undefined ? {} : { retryAfterSeconds: ra }) });
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
  } finally {
    clearTimeout(timer);
  }
}
