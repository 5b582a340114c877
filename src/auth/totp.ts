/**
 * TOTP (RFC 6238) over HOTP (RFC 4226) with node:crypto's HMAC: 30-second steps, 6 digits,
 * SHA-1 for enrolment (what every authenticator app supports); SHA-256/512 are here for the
 * RFC's test vectors and other issuers.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32Encode } from './base32.js';

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;

/** RFC 4226 §5.3: HMAC of the 8-byte big-endian counter, dynamic truncation, modulo 10^digits. */
export function hotp(key: Uint8Array, counter: bigint, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(counter);
  const mac = createHmac(algorithm, key).update(msg).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const bin = (((mac[offset] ?? 0) & 0x7f) << 24) | ((mac[offset + 1] ?? 0) << 16) | ((mac[offset + 2] ?? 0) << 8) | (mac[offset + 3] ?? 0);
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The time step of a moment (RFC 6238 §4: T = floor((now − T0) / X), T0 = 0). */
export function totpStep(atMs: number, stepSeconds = TOTP_STEP_SECONDS): bigint {
  return BigInt(Math.floor(atMs / 1000 / stepSeconds));
}

export function totp(key: Uint8Array, atMs: number, opts: { digits?: number; algorithm?: TotpAlgorithm; stepSeconds?: number } = {}): string {
  return hotp(key, totpStep(atMs, opts.stepSeconds), opts.digits, opts.algorithm);
}

/**
 * The step a code matches within ±`window` steps of now (clock drift), or null. Every candidate
 * is compared, in constant time, so the answer's timing does not tell which step matched.
 */
export function matchTotp(key: Uint8Array, code: string, atMs: number, window = 1): bigint | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(atMs);
  let found: bigint | null = null;
  for (let d = -window; d <= window; d += 1) {
    const step = now + BigInt(d);
    if (timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code)) && found === null) found = step;
  }
  return found;
}

/** A new 160-bit secret (RFC 4226 §4 recommends 160 bits), base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** The otpauth:// URI authenticator apps read (QR code), per the Key Uri Format. */
export function otpauthUri(issuer: string, account: string, secretB32: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${secretB32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_STEP_SECONDS}`;
}

/** Ten recovery codes of 80 random bits each, as xxxx-xxxx-xxxx-xxxx (base32, lower case). */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => base32Encode(randomBytes(10)).toLowerCase().match(/.{4}/g)!.join('-'));
}

/** A recovery code as typed: case, spaces and dashes do not matter. */
export function normalizeRecoveryCode(code: string): string {
  const c = code.toLowerCase().replace(/[\s-]/g, '');
  return c.match(/.{1,4}/g)?.join('-') ?? '';
}
