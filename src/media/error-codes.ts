import { defineCode } from '../errors/app-error.js';

/** Error codes owned by the media domain. Add each new code here and to docs/errors.md. */
export const MEDIA_ERRORS = {
  MEDIA_UPSTREAM_ERROR: defineCode(
    'MEDIA_UPSTREAM_ERROR',
    502,
    'The chat or speech upstream answered with an error or an unreadable response; `details` carry `service`, `upstream_status` and the upstream error code when there is one.',
  ),
  MEDIA_UPSTREAM_UNREACHABLE: defineCode('MEDIA_UPSTREAM_UNREACHABLE', 502, 'The chat or speech upstream could not be reached (connection refused, DNS, TLS); retry later.'),
  MEDIA_UPSTREAM_REJECTED: defineCode(
    'MEDIA_UPSTREAM_REJECTED',
    422,
    'The upstream refused this content (for example too long for the model context, or a content policy); `details.upstream_code` and `details.upstream_message` say why.',
  ),
  MEDIA_UPSTREAM_RATE_LIMITED: defineCode('MEDIA_UPSTREAM_RATE_LIMITED', 503, 'The chat or speech upstream is rate limiting this deployment; retry after `Retry-After` seconds.'),
  MEDIA_TIMEOUT: defineCode('MEDIA_TIMEOUT', 504, 'The chat upstream, speech upstream or local speech engine did not finish within the configured timeout (`CHAT_TIMEOUT_MS`, `TTS_TIMEOUT_MS`).'),
  MEDIA_BUSY: defineCode('MEDIA_BUSY', 503, 'Too many speech requests are being synthesized on this instance; retry after `Retry-After` seconds.'),
  TTS_ENGINE_FAILED: defineCode('TTS_ENGINE_FAILED', 500, 'The local speech engine (espeak-ng) failed or produced no audio; `details.reason` says how.'),
} as const;
