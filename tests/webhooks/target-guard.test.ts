import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.js';
import { IPV4_SPECIAL, IPV6_SPECIAL, classifyAddress } from '../../src/webhooks/adapters/special-purpose-addresses.js';
import { checkTarget } from '../../src/webhooks/target-guard.js';

// Test-side arithmetic on addresses (to reach each block's first and last address).
const v4ToInt = (s: string) => s.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const intToV4 = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
function v6ToBig(s: string): bigint {
  const [head = '', tail] = s.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}
const bigToV6 = (n: bigint) => Array.from({ length: 8 }, (_, i) => ((n >> BigInt((7 - i) * 16)) & 0xffffn).toString(16)).join(':');
const lastV4 = (prefix: string, length: number) => intToV4(v4ToInt(prefix) + 2 ** (32 - length) - 1);
const lastV6 = (prefix: string, length: number) => bigToV6(v6ToBig(prefix) | ((1n << BigInt(128 - length)) - 1n));

describe('the webhook target guard', () => {
  it('refuses the audit’s examples (issue #34 item 6)', () => {
    const cases: Array<[string, string]> = [
      ['192.0.2.1', 'documentation'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      ['2001:db8::1', 'documentation'],
      ['100::1', 'discard-only'],
      ['::ffff:0:7f00:1', 'loopback'],
    ];
    for (const [a, reason] of cases) expect(classifyAddress(a), a).toBe(reason);
  });

  it.each(IPV4_SPECIAL.map((b) => [`${b.prefix}/${b.length} ${b.name}`, b] as const))('IPv4 %s: first and last address refused, also mapped, translated, compatible, NAT64 and 6to4', (_, b) => {
    for (const a of [b.prefix, lastV4(b.prefix, b.length)]) {
      expect(classifyAddress(a), a).not.toBeNull();
      const [p, q, r, s] = a.split('.').map(Number) as [number, number, number, number];
      const hi = ((p << 8) | q).toString(16);
      const lo = ((r << 8) | s).toString(16);
      for (const form of [`::ffff:${a}`, `::ffff:${hi}:${lo}`, `::ffff:0:${a}`, `::ffff:0:${hi}:${lo}`, `::${a}`, `64:ff9b::${a}`, `64:ff9b::${hi}:${lo}`, `2002:${hi}:${lo}::1`]) {
        expect(classifyAddress(form), form).not.toBeNull();
      }
    }
    // The reason is the block's own where no more specific block contains the address.
    expect(classifyAddress(lastV4(b.prefix, b.length))).toBe(
      IPV4_SPECIAL.find((x) => x.length <= 32 && v4ToInt(lastV4(b.prefix, b.length)) >= v4ToInt(x.prefix) && v4ToInt(lastV4(b.prefix, b.length)) <= v4ToInt(lastV4(x.prefix, x.length)))?.reason,
    );
  });

  it.each(IPV6_SPECIAL.map((b) => [`${b.prefix}/${b.length} ${b.name}`, b] as const))('IPv6 %s: first and last address refused', (_, b) => {
    for (const a of [b.prefix, lastV6(b.prefix, b.length)]) expect(classifyAddress(a), a).not.toBeNull();
    // The reason is the first (most specific) block that contains the address: TEREDO inside 2001::/23, for one.
    const n = v6ToBig(b.prefix);
    expect(classifyAddress(b.prefix)).toBe(IPV6_SPECIAL.find((x) => n >= v6ToBig(x.prefix) && n <= v6ToBig(lastV6(x.prefix, x.length)))?.reason);
  });

  it('allows globally reachable addresses, in every form that carries one, and the neighbours of refused blocks', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.215.14',
      '172.32.0.1',
      '100.128.0.0',
      '198.20.0.0',
      '192.0.1.0',
      '203.0.114.0',
      '223.255.255.255',
      '2606:4700::1111',
      '2a00:1450:4001::200e',
      '2001:200::1',
      '2001:db9::1',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
      '[2606:4700::1111]',
    ]) {
      expect(classifyAddress(a), a).toBeNull();
    }
  });

  it('names the reasons of the usual blocks and refuses what is not an address', () => {
    const cases: Array<[string, string]> = [
      ['127.1.2.3', 'loopback'],
      ['10.255.0.1', 'private'],
      ['100.64.0.1', 'shared'],
      ['169.254.169.254', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['239.1.1.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::abcd%eth0', 'link-local'],
      ['fc00::1', 'unique-local'],
      ['fdff:ffff::1', 'unique-local'],
      ['ff05::2', 'multicast'],
      ['::ffff:192.168.1.1', 'private'],
      ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
      ['::127.0.0.1', 'loopback'],
      ['::8.8.8.8', 'deprecated'],
      ['::ffff:0:8.8.8.8', 'reserved'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b:1::8.8.8.8', 'translation'],
      ['2002:7f00:1::', 'loopback'],
      ['2001:0:4136:e378::1', 'teredo'],
      ['4000::1', 'reserved'],
      ['not-an-address', 'unparseable'],
      ['1:2:3:4:5:6:7:8:9', 'unparseable'],
      ['01.2.3.4', 'unparseable'],
    ];
    for (const [a, reason] of cases) expect(classifyAddress(a), a).toBe(reason);
  });

  it('refuses a host when any of its addresses is refused, and re-checks on every call (DNS rebinding)', async () => {
    let answer = ['93.184.215.14'];
    const resolver = { resolve: async () => answer };
    const policy = { resolver, classify: classifyAddress, allowPrivate: false };
    const ok = await checkTarget('https://hooks.example.com/x', policy);
    expect(ok.addresses).toEqual(['93.184.215.14']);
    expect(ok.url.hostname).toBe('hooks.example.com');
    answer = ['93.184.215.14', '192.0.2.10'];
    const e = await checkTarget('https://hooks.example.com/x', policy).catch((x: unknown) => x);
    expect(isAppError(e) && e.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(isAppError(e) && e.details).toEqual({ reason: 'documentation' });
    // A deployment that allows private targets (tests, closed networks) takes it.
    expect((await checkTarget('https://hooks.example.com/x', { ...policy, allowPrivate: true })).addresses).toEqual(['93.184.215.14', '192.0.2.10']);
    answer = [];
    const none = await checkTarget('https://hooks.example.com/x', { ...policy, allowPrivate: true }).catch((x: unknown) => x);
    expect(isAppError(none) && none.code).toBe('WEBHOOK_URL_UNRESOLVABLE');
  });
});
