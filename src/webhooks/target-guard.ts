/**
 * Where outbound webhooks may go (docs/webhooks.md#where-webhooks-may-go): http(s) URLs without
 * credentials whose host resolves only to public addresses. Checked when an endpoint is registered
 * and again before every delivery, which then connects to the address checked here (no second DNS
 * answer in between: a rebinding host cannot swap in a private address).
 */
import { fail } from '../errors/app-error.js';
import { WEBHOOKS_ERRORS } from './error-codes.js';
import type { HostResolver } from './ports.js';

export interface CheckedTarget {
  readonly url: URL;
  /** The addresses the host resolved to, each allowed; deliveries connect to the first. */
  readonly addresses: readonly string[];
}

function parseV4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return out.every((n) => n >= 0 && n <= 255) ? out : null;
}

/** The 8 groups of an IPv6 address (an embedded dotted IPv4 tail included), or null. */
function parseV6(input: string): number[] | null {
  let s = input.replace(/^\[|\]$/g, '').toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    // a dotted IPv4 tail (::ffff:127.0.0.1) becomes its two hex groups
    const v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    s = `${s.slice(0, lastColon + 1)}${hex(v4[0] ?? 0, v4[1] ?? 0)}:${hex(v4[2] ?? 0, v4[3] ?? 0)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = groups(halves[0] ?? '');
  const rest = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  const all = [...head, ...Array<number>(halves.length === 2 ? fill : 0).fill(0), ...rest];
  return all.length === 8 && all.every((g) => Number.isInteger(g)) ? all : null;
}

function v4Reason(a: number[]): string | null {
  const [x = 0, y = 0] = a;
  if (x === 0) return 'unspecified';
  if (x === 10 || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168)) return 'private';
  if (x === 100 && y >= 64 && y <= 127) return 'private'; // carrier-grade NAT (RFC 6598)
  if (x === 127) return 'loopback';
  if (x === 169 && y === 254) return 'link-local';
  if (x === 192 && y === 0 && a[2] === 0) return 'private'; // IETF protocol assignments
  if (x === 198 && (y === 18 || y === 19)) return 'private'; // benchmarking
  if (x >= 224 && x <= 239) return 'multicast';
  if (x >= 240) return 'reserved';
  return null;
}

/** Why an address may not be a webhook target ('private', 'loopback', …), or null when it is public. */
export function forbiddenAddressReason(address: string): string | null {
  const v4 = parseV4(address);
  if (v4 !== null) return v4Reason(v4);
  const g = parseV6(address);
  if (g === null) return 'unparseable';
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = [g6 >> 8, g6 & 255, g7 >> 8, g7 & 255];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0xffff || (g5 === 0 && g6 !== 0)) return v4Reason(embedded) ?? null; // IPv4-mapped / -compatible
    if (g5 === 0 && g6 === 0) return g7 === 1 ? 'loopback' : g7 === 0 ? 'unspecified' : 'reserved';
  }
  if (g0 === 0x64 && g1 === 0xff9b) return v4Reason(embedded); // NAT64
  if (g0 === 0x2002) return v4Reason([g1 >> 8, g1 & 255, g2 >> 8, g2 & 255]); // 6to4
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return null;
}

function refuse(reason: string, message: string): never {
  throw fail(WEBHOOKS_ERRORS.WEBHOOK_URL_NOT_ALLOWED, message, { reason });
}

/** The URL's shape alone: http(s), a host, no user:password. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not_a_url', 'The endpoint URL is not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('scheme', `Only http and https URLs are allowed, not ${url.protocol}.`);
  if (url.username !== '' || url.password !== '') refuse('credentials', 'The endpoint URL must not carry a user name or password.');
  if (url.hostname === '') refuse('host', 'The endpoint URL has no host.');
  return url;
}

/** Resolves the host and refuses any non-public address unless `allowPrivate` (the deployment's WEBHOOK_ALLOW_PRIVATE_TARGETS). */
export async function checkTarget(raw: string, resolver: HostResolver, allowPrivate: boolean): Promise<CheckedTarget> {
  const url = parseTargetUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = await resolver.resolve(host);
  if (addresses.length === 0) throw fail(WEBHOOKS_ERRORS.WEBHOOK_URL_UNRESOLVABLE, `The host ${host} does not resolve.`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const reason = forbiddenAddressReason(a);
      if (reason !== null) refuse(reason, `The host ${host} resolves to a ${reason} address (${a}); webhooks go only to public addresses.`);
    }
  }
  return { url, addresses };
}
