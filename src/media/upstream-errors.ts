import { fail, type AppError } from '../errors/app-error.js';
import { MEDIA_ERRORS } from './error-codes.js';
import { UpstreamFailure } from './ports.js';

export type MediaServiceName = 'chat' | 'tts';

const LABEL: Record<MediaServiceName, string> = { chat: 'The chat service', tts: 'The speech service' };
const KEY_VAR: Record<MediaServiceName, string> = { chat: 'CHAT_API_KEY', tts: 'TTS_API_KEY' };
const URL_VARS: Record<MediaServiceName, string> = { chat: 'CHAT_BASE_URL and CHAT_MODEL', tts: 'TTS_BASE_URL and TTS_MODEL' };

/** Removes anything that looks like a secret from an upstream message and bounds its length. */
export function redactUpstreamMessage(s: string): string {
  return s
    .replace(/\b(?:sk|pk|rk|key|api|token|bearer)[-_][A-Za-z0-9_-]{6,}/gi, '***')
    .replace(/[A-Za-z0-9_-]{32,}/g, '***')
    .slice(0, 500);
}

function retryAfter(seconds: number | undefined): string {
  const s = seconds === undefined || !Number.isFinite(seconds) ? 5 : Math.ceil(seconds);
  return String(Math.min(300, Math.max(1, s)));
}

/**
 * Maps what an adapter threw to an error with a stable code. Credentials problems and
 * server errors are the deployment's, so their upstream text is not shown to the client;
 * content rejections (400/413/422) are the caller's, so their reason is passed on, redacted.
 */
export function upstreamError(service: MediaServiceName, err: unknown, ctx: { timeoutMs: number; engine?: string }): AppError {
  const label = ctx.engine === 'espeak' ? 'The local speech engine (espeak-ng)' : LABEL[service];
  const base: Record<string, unknown> = { service, ...(ctx.engine === undefined ? {} : { engine: ctx.engine }) };
  if (!(err instanceof UpstreamFailure)) {
    return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `${label} failed unexpectedly.`, { ...base, reason: 'unexpected' });
  }
  const x = err.extra;
  const upstream = {
    ...base,
    reason: err.kind,
    ...(x.status === undefined ? {} : { upstream_status: x.status }),
    ...(x.upstreamCode === undefined ? {} : { upstream_code: x.upstreamCode }),
    ...(x.upstreamType === undefined ? {} : { upstream_type: x.upstreamType }),
  };
  switch (err.kind) {
    case 'timeout':
      return fail(MEDIA_ERRORS.MEDIA_TIMEOUT, `${label} did not finish within ${ctx.timeoutMs} ms; retry, or shorten the request.`, { ...base, reason: 'timeout', timeout_ms: ctx.timeoutMs });
    case 'unreachable':
      return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_UNREACHABLE, `${label} could not be reached; retry later.`, { ...base, reason: 'unreachable' }, { 'retry-after': '5' });
    case 'engine':
      return fail(MEDIA_ERRORS.TTS_ENGINE_FAILED, `${label} failed: ${err.message}`, { ...base, reason: 'engine' });
    case 'too_large':
      return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `${label} answered with more data than this deployment accepts.`, upstream);
    case 'malformed':
      return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `${label} answered with an unreadable response: ${err.message}`, upstream);
    case 'http':
      break;
  }
  const status = x.status ?? 0;
  if (status === 429) {
    return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_RATE_LIMITED, `${label} is rate limiting this deployment; retry shortly.`, upstream, { 'retry-after': retryAfter(x.retryAfterSeconds) });
  }
  if (status === 401 || status === 403) {
    return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `${label} refused this deployment's credentials (HTTP ${status}); an operator must check ${KEY_VAR[service]}.`, upstream);
  }
  if (status === 404) {
    return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `${label} does not know this endpoint or model (HTTP 404); an operator must check ${URL_VARS[service]}.`, upstream);
  }
  if (status === 400 || status === 413 || status === 422) {
    const msg = x.upstreamMessage === undefined ? undefined : redactUpstreamMessage(x.upstreamMessage);
    return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_REJECTED, `${label} refused the request${msg === undefined ? '' : `: ${msg}`}`, { ...upstream, ...(msg === undefined ? {} : { upstream_message: msg }) });
  }
  return fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `${label} failed (HTTP ${status}); retry later.`, upstream);
}
