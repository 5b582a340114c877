import { createHmac, timingSafeEqual } from 'node:crypto';
import { fail } from '../../errors/app-error.js';
import { BILLING_ERRORS } from '../error-codes.js';

/** Stripe's scheme: `Stripe-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=…]`. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function signPayload(payload: string | Uint8Array, secret: string, timestamp: number): string {
  const body = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeader(payload: string | Uint8Array, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${signPayload(payload, secret, timestamp)}`;
}

/**
 * Verifies the raw body against the header. Rejects a missing/malformed header or a
 * mismatch (WEBHOOK_SIGNATURE_INVALID) and a timestamp more than the tolerance away from
 * now in either direction (WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE) — Stripe's own library only
 * rejects old ones; a far-future timestamp would let a captured request be replayed later.
 */
export function verifySignature(raw: Uint8Array, header: string | undefined, secret: string, nowSeconds: number, tolerance = WEBHOOK_TOLERANCE_SECONDS): number {
  if (header === undefined || header === '') throw fail(BILLING_ERRORS.WEBHOOK_SIGNATURE_INVALID, 'The Stripe-Signature header is missing.');
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/i.test(v)) v1.push(v.toLowerCase());
  }
  if (t === undefined || v1.length === 0) throw fail(BILLING_ERRORS.WEBHOOK_SIGNATURE_INVALID, 'The Stripe-Signature header has no timestamp or no v1 signature.');
  const expected = Buffer.from(signPayload(raw, secret, t), 'hex');
  const match = v1.some((s) => {
    const got = Buffer.from(s, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
  if (!match) throw fail(BILLING_ERRORS.WEBHOOK_SIGNATURE_INVALID, 'No v1 signature matches the body.');
  // Checked after the signature so that an attacker learns nothing from the timestamp answer.
  if (Math.abs(nowSeconds - t) > tolerance) {
    throw fail(BILLING_ERRORS.WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE, `The signature timestamp is ${nowSeconds - t > 0 ? 'older' : 'newer'} than the ${tolerance} s tolerance.`, {
      timestamp: t,
      now: nowSeconds,
      tolerance_seconds: tolerance,
    });
  }
  return t;
}
