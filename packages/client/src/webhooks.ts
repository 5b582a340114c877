/**
 * Verifying qrail's outbound webhooks on the receiving side (docs/webhooks.md#verifying-a-delivery).
 * Header: `Qrail-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`; more
 * than one v1 may appear. WebCrypto only, so it runs in Node ≥ 20, Deno, Bun, workers and browsers.
 */

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature time and now, either way (default 300 s). */
  readonly toleranceSeconds?: number;
  /** The current time in unix seconds (tests). */
  readonly nowSeconds?: number;
}

export type WebhookVerification =
  { readonly ok: true; readonly timestamp: number } | { readonly ok: false; readonly reason: 'malformed_header' | 'no_matching_signature' | 'timestamp_out_of_tolerance' };

const encoder = new TextEncoder();

function hex(buf: ArrayBuffer): string {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Compares without an early exit, so the time taken says nothing about where a guess went wrong. */
function equalHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a delivery: `payload` is the raw request body exactly as received (string or bytes, not
 * re-serialised JSON), `header` the Qrail-Signature header, `secret` the endpoint's `whsec_…`.
 */
export async function verifyWebhookSignature(payload: string | Uint8Array, header: string | null | undefined, secret: string, opts: VerifyWebhookOptions = {}): Promise<WebhookVerification> {
  if (header === null || header === undefined || header === '') return { ok: false, reason: 'malformed_header' };
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
  if (t === undefined || v1.length === 0) return { ok: false, reason: 'malformed_header' };
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = hex(await globalThis.crypto.subtle.sign('HMAC', key, signed));
  if (!v1.some((s) => equalHex(s, expected))) return { ok: false, reason: 'no_matching_signature' };
  // After the signature: a forger learns nothing from the timestamp answer.
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  return { ok: true, timestamp: t };
}
