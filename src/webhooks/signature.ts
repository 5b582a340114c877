import { randomBytes } from 'node:crypto';
import { signatureHeader } from '../billing/processor/webhook-signature.js';

/**
 * The processor's (Stripe's) scheme, under our header name:
 * `Qrail-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Receivers verify with `verifyWebhookSignature` of @qrail/client or the snippet in docs/webhooks.md.
 */
export const SIGNATURE_HEADER = 'qrail-signature';

export function signWebhook(body: string, secret: string, timestamp: number): string {
  return signatureHeader(body, secret, timestamp);
}

/** A new signing secret: `whsec_` and 32 random bytes in hex. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}
