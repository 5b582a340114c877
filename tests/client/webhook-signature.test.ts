import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../packages/client/src/index.js';
import { signWebhook } from '../../src/webhooks/signature.js';

describe('verifyWebhookSignature (@qrail/client) against the service’s signer', () => {
  const secret = 'whsec_0123456789abcdef';
  const body = JSON.stringify({ id: 'e1', type: 'job.completed', data: { text: 'héllo ✓' } });
  const t = 1_800_000_000;

  it('accepts the service’s signature over the raw body, as a string or as bytes', async () => {
    const header = signWebhook(body, secret, t);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(await verifyWebhookSignature(body, header, secret, { nowSeconds: t + 10 })).toEqual({ ok: true, timestamp: t });
    expect(await verifyWebhookSignature(new TextEncoder().encode(body), header, secret, { nowSeconds: t })).toEqual({ ok: true, timestamp: t });
    // A rotated secret's signature beside the current one: any matching v1 will do.
    const other = signWebhook(body, 'whsec_old', t).split(',')[1];
    expect((await verifyWebhookSignature(body, `${header},${other}`, 'whsec_old', { nowSeconds: t })).ok).toBe(true);
  });

  it('refuses another secret, a changed body, a malformed header and a stale or future timestamp', async () => {
    const header = signWebhook(body, secret, t);
    expect(await verifyWebhookSignature(body, header, 'whsec_other', { nowSeconds: t })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(await verifyWebhookSignature(body.replace('job.completed', 'job.failed'), header, secret, { nowSeconds: t })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(await verifyWebhookSignature(`${body} `, header, secret, { nowSeconds: t })).toMatchObject({ ok: false });
    for (const bad of [undefined, null, '', 'v1=abc', `t=${t}`, `t=abc,v1=${'0'.repeat(64)}`])
      expect(await verifyWebhookSignature(body, bad, secret, { nowSeconds: t })).toEqual({ ok: false, reason: 'malformed_header' });
    expect(await verifyWebhookSignature(body, header, secret, { nowSeconds: t + 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(await verifyWebhookSignature(body, header, secret, { nowSeconds: t - 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect((await verifyWebhookSignature(body, header, secret, { nowSeconds: t + 3000, toleranceSeconds: 3600 })).ok).toBe(true);
  });
});

describe('the plain Node verification snippet of docs/webhooks.md', () => {
  it('accepts a delivery signed by the service and refuses a forged one', async () => {
    const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const block = /```js\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    // Run as written: the block is a module of its own (its import included).
    const dir = mkdtempSync(join(tmpdir(), 'qrail-snippet-'));
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, `${block}\nexport { verify };\n`);
    const { verify } = (await import(pathToFileURL(file).href)) as { verify: (this: void, b: string, h: string, s: string) => boolean };
    rmSync(dir, { recursive: true, force: true });
    const body = '{"id":"e1","type":"job.completed"}';
    const now = Math.floor(Date.now() / 1000);
    expect(verify(body, signWebhook(body, 'whsec_a', now), 'whsec_a')).toBe(true);
    expect(verify(body, signWebhook(body, 'whsec_a', now), 'whsec_b')).toBe(false);
    expect(verify(`${body} `, signWebhook(body, 'whsec_a', now), 'whsec_a')).toBe(false);
    expect(verify(body, signWebhook(body, 'whsec_a', now - 600), 'whsec_a')).toBe(false);
    expect(verify(body, 'garbage', 'whsec_a')).toBe(false);
  });
});
