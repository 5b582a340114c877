/** Opaque bearer secrets: a recognisable prefix + 256 random bits, stored only as SHA-256. */
const B64URL = /^[A-Za-z0-9_-]+$/;

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function newSecret(prefix: string): string {
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  return prefix + base64url(bytes);
}

/** A well-formed secret has the prefix and exactly 43 base64url characters (32 bytes). */
export function isWellFormed(secret: string, prefix: string): boolean {
  if (!secret.startsWith(prefix)) return false;
  const body = secret.slice(prefix.length);
  return body.length === 43 && B64URL.test(body);
}

export async function sha256Hex(s: string): Promise<string> {
  const d = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(s));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
}

export const SESSION_PREFIX = 'qrs_';
