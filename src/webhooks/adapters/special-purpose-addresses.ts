/**
 * Which addresses a webhook may not be delivered to: every entry of the IANA special-purpose
 * address registries that is not globally reachable, checked with `node:net`'s BlockList (no
 * address is parsed by hand here). Used by the target guard at registration and before every
 * delivery attempt (src/webhooks/target-guard.ts).
 *
 * Sources (the "Globally Reachable" column decides; "N/A" deprecated blocks are refused too):
 * - IANA IPv4 Special-Purpose Address Registry (RFC 6890, RFC 8190):
 *   https://www.iana.org/assignments/iana-ipv4-special-registry/
 * - IANA IPv6 Special-Purpose Address Registry (RFC 6890, RFC 8190):
 *   https://www.iana.org/assignments/iana-ipv6-special-registry/
 * - IPv4 multicast (RFC 5771) and IPv6 multicast (RFC 4291 §2.7), which the special-purpose
 *   registries do not list; and the IANA IPv6 Address Space registry, where only 2000::/3 is
 *   global unicast (everything else outside the forms below is reserved by the IETF).
 *
 * Globally reachable entries nested in a blocked one (192.0.0.9/32 PCP and 192.0.0.10/32 TURN
 * anycast in 192.0.0.0/24; 2001:1::1–3, 2001:3::/32 AMT, 2001:4:112::/48 AS112, 2001:20::/28
 * ORCHIDv2 and 2001:30::/28 DETs in 2001::/23) are service or identifier addresses where no
 * webhook receiver lives: the enclosing block stays refused whole.
 *
 * Addresses that carry an IPv4 address are judged by it: IPv4-mapped (::ffff:a.b.c.d, where a
 * socket connects to the IPv4 address), NAT64 (64:ff9b::/96, RFC 6052) and 6to4 (2002::/16,
 * RFC 3056) are allowed exactly when the embedded address is; IPv4-translated (::ffff:0:a.b.c.d,
 * RFC 2765) and IPv4-compatible (::a.b.c.d, deprecated by RFC 4291) name the embedded address's
 * reason when it has one, else are refused as reserved / deprecated.
 */
import { BlockList, isIP } from 'node:net';
import type { AddressClassifier } from '../ports.js';

type Family = 'ipv4' | 'ipv6';

/** One registry entry: the block, its registry name, the RFC, and the `details.reason` of a refusal. */
export interface SpecialBlock {
  readonly prefix: string;
  readonly length: number;
  readonly name: string;
  readonly rfc: string;
  readonly reason: string;
}

/** IPv4 entries not globally reachable, more specific first (the first match names the reason). */
export const IPV4_SPECIAL: readonly SpecialBlock[] = [
  { prefix: '0.0.0.0', length: 32, name: 'This host on this network', rfc: 'RFC 1122', reason: 'unspecified' },
  { prefix: '0.0.0.0', length: 8, name: '"This network"', rfc: 'RFC 791', reason: 'this-network' },
  { prefix: '10.0.0.0', length: 8, name: 'Private-Use', rfc: 'RFC 1918', reason: 'private' },
  { prefix: '100.64.0.0', length: 10, name: 'Shared Address Space', rfc: 'RFC 6598', reason: 'shared' },
  { prefix: '127.0.0.0', length: 8, name: 'Loopback', rfc: 'RFC 1122', reason: 'loopback' },
  { prefix: '169.254.0.0', length: 16, name: 'Link Local', rfc: 'RFC 3927', reason: 'link-local' },
  { prefix: '172.16.0.0', length: 12, name: 'Private-Use', rfc: 'RFC 1918', reason: 'private' },
  { prefix: '192.0.0.0', length: 29, name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', reason: 'ietf-protocol' },
  { prefix: '192.0.0.8', length: 32, name: 'IPv4 dummy address', rfc: 'RFC 7600', reason: 'ietf-protocol' },
  { prefix: '192.0.0.170', length: 32, name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', reason: 'ietf-protocol' },
  { prefix: '192.0.0.171', length: 32, name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', reason: 'ietf-protocol' },
  { prefix: '192.0.0.0', length: 24, name: 'IETF Protocol Assignments', rfc: 'RFC 6890', reason: 'ietf-protocol' },
  { prefix: '192.0.2.0', length: 24, name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', reason: 'documentation' },
  { prefix: '192.88.99.0', length: 24, name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', reason: 'deprecated' },
  { prefix: '192.168.0.0', length: 16, name: 'Private-Use', rfc: 'RFC 1918', reason: 'private' },
  { prefix: '198.18.0.0', length: 15, name: 'Benchmarking', rfc: 'RFC 2544', reason: 'benchmarking' },
  { prefix: '198.51.100.0', length: 24, name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', reason: 'documentation' },
  { prefix: '203.0.113.0', length: 24, name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', reason: 'documentation' },
  { prefix: '224.0.0.0', length: 4, name: 'Multicast', rfc: 'RFC 5771', reason: 'multicast' },
  { prefix: '255.255.255.255', length: 32, name: 'Limited Broadcast', rfc: 'RFC 919', reason: 'broadcast' },
  { prefix: '240.0.0.0', length: 4, name: 'Reserved', rfc: 'RFC 1112', reason: 'reserved' },
];

/** IPv6 entries not globally reachable (the IPv4-carrying forms are derived below). */
export const IPV6_SPECIAL: readonly SpecialBlock[] = [
  { prefix: '::1', length: 128, name: 'Loopback Address', rfc: 'RFC 4291', reason: 'loopback' },
  { prefix: '::', length: 128, name: 'Unspecified Address', rfc: 'RFC 4291', reason: 'unspecified' },
  { prefix: '64:ff9b:1::', length: 48, name: 'IPv4-IPv6 Translat. (local use)', rfc: 'RFC 8215', reason: 'translation' },
  { prefix: '100::', length: 64, name: 'Discard-Only Address Block', rfc: 'RFC 6666', reason: 'discard-only' },
  { prefix: '100:0:0:1::', length: 64, name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', reason: 'ietf-protocol' },
  { prefix: '2001::', length: 32, name: 'TEREDO', rfc: 'RFC 4380', reason: 'teredo' },
  { prefix: '2001:2::', length: 48, name: 'Benchmarking', rfc: 'RFC 5180', reason: 'benchmarking' },
  { prefix: '2001:10::', length: 28, name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', reason: 'deprecated' },
  { prefix: '2001::', length: 23, name: 'IETF Protocol Assignments', rfc: 'RFC 2928', reason: 'ietf-protocol' },
  { prefix: '2001:db8::', length: 32, name: 'Documentation', rfc: 'RFC 3849', reason: 'documentation' },
  { prefix: '3fff::', length: 20, name: 'Documentation', rfc: 'RFC 9637', reason: 'documentation' },
  { prefix: '5f00::', length: 16, name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', reason: 'segment-routing' },
  { prefix: 'fc00::', length: 7, name: 'Unique-Local', rfc: 'RFC 4193', reason: 'unique-local' },
  { prefix: 'fe80::', length: 10, name: 'Link-Local Unicast', rfc: 'RFC 4291', reason: 'link-local' },
  { prefix: 'fec0::', length: 10, name: 'Site-Local (deprecated)', rfc: 'RFC 3879', reason: 'deprecated' },
  { prefix: 'ff00::', length: 8, name: 'Multicast', rfc: 'RFC 4291', reason: 'multicast' },
];

/** IPv6 forms that carry an IPv4 address in their low 32 bits (6to4: bits 16–47); how each is written around a.b.c.d. */
const EMBEDDINGS: ReadonlyArray<{ name: string; at: (v4: string) => string; offset: number; whole: { prefix: string; length: number; reason: string | null } }> = [
  { name: 'IPv4-mapped', at: (v4) => `::ffff:${v4}`, offset: 96, whole: { prefix: '::ffff:0:0', length: 96, reason: null } },
  { name: 'IPv4-translated', at: (v4) => `::ffff:0:${v4}`, offset: 96, whole: { prefix: '::ffff:0:0:0', length: 96, reason: 'reserved' } },
  { name: 'IPv4-compatible', at: (v4) => `::${v4}`, offset: 96, whole: { prefix: '::', length: 96, reason: 'deprecated' } },
  { name: 'NAT64 well-known prefix', at: (v4) => `64:ff9b::${v4}`, offset: 96, whole: { prefix: '64:ff9b::', length: 96, reason: null } },
  {
    name: '6to4',
    at: (v4) => {
      const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
      return `2002:${hex(a, b)}:${hex(c, d)}::`;
    },
    offset: 16,
    whole: { prefix: '2002::', length: 16, reason: null },
  },
];

interface Rule {
  readonly family: Family;
  readonly list: BlockList;
  /** null: the address is allowed (an embedding of a public IPv4 address). */
  readonly reason: string | null;
}

function rule(family: Family, prefix: string, length: number, reason: string | null): Rule {
  const list = new BlockList();
  list.addSubnet(prefix, length, family);
  return { family, list, reason };
}

/** The rules in the order they are tried: the first that contains the address decides. */
function buildRules(): Rule[] {
  const rules: Rule[] = IPV4_SPECIAL.map((b) => rule('ipv4', b.prefix, b.length, b.reason));
  rules.push(...IPV6_SPECIAL.filter((b) => b.length === 128).map((b) => rule('ipv6', b.prefix, b.length, b.reason)));
  for (const e of EMBEDDINGS) {
    for (const b of IPV4_SPECIAL) rules.push(rule('ipv6', e.at(b.prefix), e.offset + b.length, b.reason));
    rules.push(rule('ipv6', e.whole.prefix, e.whole.length, e.whole.reason));
  }
  rules.push(...IPV6_SPECIAL.filter((b) => b.length !== 128).map((b) => rule('ipv6', b.prefix, b.length, b.reason)));
  // Only 2000::/3 is global unicast (IANA IPv6 Address Space); the rest is reserved by the IETF.
  rules.push(rule('ipv6', '2000::', 3, null));
  rules.push(rule('ipv6', '::', 0, 'reserved'));
  return rules;
}

const RULES = buildRules();

/** Why an address may not be a webhook target ('loopback', 'documentation', …), or null when it is globally reachable. */
export const classifyAddress: AddressClassifier = (input) => {
  let address = input.replace(/^\[|\]$/g, '');
  const version = isIP(address);
  if (version === 0) return 'unparseable';
  // A zone (fe80::1%eth0) names an interface, not part of the address BlockList compares.
  if (version === 6) address = address.replace(/%.*$/, '');
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  // Rules of the other family are skipped: BlockList would match an IPv4 address against IPv6
  // rules through its mapped form (so ::/0 would refuse every IPv4 address).
  for (const r of RULES) if (r.family === family && r.list.check(address, family)) return r.reason;
  return null;
};
