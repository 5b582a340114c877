import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors/app-error.js';
import { checkTarget, forbiddenAddressReason } from '../../src/webhooks/target-guard.js';

describe('the webhook target guard', () => {
  it('classifies IPv4 and IPv6 addresses, IPv4-mapped and embedded forms included', () => {
    const cases: Array<[string, string | null]> = [
      ['8.8.8.8', null],
      ['93.184.215.14', null],
      ['127.1.2.3', 'loopback'],
      ['10.255.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.1', null],
      ['192.168.0.1', 'private'],
      ['169.254.0.1', 'link-local'],
      ['0.0.0.0', 'unspecified'],
      ['239.1.1.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['2606:4700::1111', null],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::abcd%eth0', 'link-local'],
      ['fc00::1', 'unique-local'],
      ['fdff:ffff::1', 'unique-local'],
      ['ff05::2', 'multicast'],
      ['::ffff:192.168.1.1', 'private'],
      ['::ffff:8.8.8.8', null],
      ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
      ['::127.0.0.1', 'loopback'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['2002:7f00:1::', 'loopback'],
      ['not-an-address', 'unparseable'],
      ['1:2:3:4:5:6:7:8:9', 'unparseable'],
    ];
    for (const [a, reason] of cases) expect(forbiddenAddressReason(a), a).toBe(reason);
  });

  it('refuses a host when any of its addresses is private, and re-checks on every call (DNS rebinding)', async () => {
    let answer = ['93.184.215.14'];
    const resolver = { resolve: async () => answer };
    const ok = await checkTarget('https://hooks.example.com/x', resolver, false);
    expect(ok.addresses).toEqual(['93.184.215.14']);
    expect(ok.url.hostname).toBe('hooks.example.com');
    answer = ['93.184.215.14', '10.0.0.7'];
    const e = await checkTarget('https://hooks.example.com/x', resolver, false).catch((x: unknown) => x);
    expect(isAppError(e) && e.code).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(isAppError(e) && e.details).toEqual({ reason: 'private' });
    // A deployment that allows private targets (tests, closed networks) takes it.
    expect((await checkTarget('https://hooks.example.com/x', resolver, true)).addresses).toEqual(['93.184.215.14', '10.0.0.7']);
    answer = [];
    const none = await checkTarget('https://hooks.example.com/x', resolver, true).catch((x: unknown) => x);
    expect(isAppError(none) && none.code).toBe('WEBHOOK_URL_UNRESOLVABLE');
  });
});
