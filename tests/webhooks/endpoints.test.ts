import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';

describe('webhook endpoints: registration, listing, deletion and the target guard', () => {
  let app: App;
  beforeAll(async () => {
    // The default deployment: private targets refused.
    app = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
  });
  afterAll(async () => {
    await app.close();
  });

  const create = (auth: { authorization: string } | undefined, payload: unknown) =>
    app.inject({ method: 'POST', url: '/v1/webhooks/endpoints', ...(auth === undefined ? {} : { headers: auth }), payload: payload as object });

  it('creates, shows the secret once, lists, reads, deletes', async () => {
    const u = await signUp(app);
    const r = await create(u.auth, { url: 'https://93.184.215.14/hooks?x=1', event_types: ['job.completed', 'job.failed'], description: 'prod' });
    expect(r.statusCode).toBe(201);
    expect(r.headers['cache-control']).toBe('no-store');
    const ep = r.json().data;
    expect(ep).toMatchObject({
      url: 'https://93.184.215.14/hooks?x=1',
      event_types: ['job.completed', 'job.failed'],
      description: 'prod',
      status: 'enabled',
      disabled_reason: null,
      failing_since: null,
    });
    expect(ep.secret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const list = (await app.inject({ method: 'GET', url: '/v1/webhooks/endpoints', headers: u.auth })).json().data;
    expect(list).toMatchObject({ next_cursor: null, has_more: false });
    expect(list.endpoints).toHaveLength(1);
    expect(list.endpoints[0].endpoint_id).toBe(ep.endpoint_id);
    expect(list.endpoints[0]).not.toHaveProperty('secret');
    const one = (await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${ep.endpoint_id}`, headers: u.auth })).json();
    expect(one.status).toBe('ok');
    expect(one.data).not.toHaveProperty('secret');
    expect(JSON.stringify(one)).not.toContain(ep.secret);

    // Another account sees nothing of it.
    const other = await signUp(app);
    for (const [method, url] of [
      ['GET', `/v1/webhooks/endpoints/${ep.endpoint_id}`],
      ['DELETE', `/v1/webhooks/endpoints/${ep.endpoint_id}`],
      ['GET', `/v1/webhooks/endpoints/${ep.endpoint_id}/deliveries`],
      ['POST', `/v1/webhooks/endpoints/${ep.endpoint_id}/enable`],
    ] as const) {
      const x = await app.inject({ method, url, headers: other.auth });
      expect(x.statusCode).toBe(404);
      expect(x.json().error.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
    }
    expect((await app.inject({ method: 'GET', url: '/v1/webhooks/endpoints', headers: other.auth })).json().data.endpoints).toEqual([]);

    const del = await app.inject({ method: 'DELETE', url: `/v1/webhooks/endpoints/${ep.endpoint_id}`, headers: u.auth });
    expect(del.statusCode).toBe(200);
    expect(del.json().data).toEqual({ endpoint_id: ep.endpoint_id, deleted: true });
    expect((await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${ep.endpoint_id}`, headers: u.auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: `/v1/webhooks/endpoints/${ep.endpoint_id}`, headers: u.auth })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/v1/webhooks/endpoints', headers: u.auth })).json().data.endpoints).toEqual([]);
  });

  it('authenticates before validating, and validates the body', async () => {
    const none = await create(undefined, { nonsense: true });
    expect(none.statusCode).toBe(401);
    const u = await signUp(app);
    const cases: Array<[unknown, string]> = [
      [{ url: 'https://93.184.215.14/', event_types: [] }, '/event_types'],
      [{ url: 'https://93.184.215.14/', event_types: ['job.exploded'] }, '/event_types/0'],
      [{ url: 'https://93.184.215.14/', event_types: ['job.failed', 'job.failed'] }, '/event_types/1'],
      [{ url: 'https://93.184.215.14/', event_types: ['*'], extra: 1 }, ''],
      [{ event_types: ['*'] }, ''],
      [{ url: `https://93.184.215.14/${'a'.repeat(2100)}`, event_types: ['*'] }, '/url'],
    ];
    for (const [payload, path] of cases) {
      const r = await create(u.auth, payload);
      expect(r.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(r.json().error.code).toBe('VALIDATION_FAILED');
      if (path !== '') expect(JSON.stringify(r.json().error.details)).toContain(path);
    }
    expect((await app.inject({ method: 'GET', url: '/v1/webhooks/events?type=nope', headers: u.auth })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/v1/webhooks/events?cursor=zzz', headers: u.auth })).json().error.code).toBe('INVALID_CURSOR');
  });

  it('refuses non-http(s) URLs and hosts that resolve to private, loopback, link-local or other non-public addresses', async () => {
    const u = await signUp(app);
    const refused: Array<[string, string]> = [
      ['ftp://93.184.215.14/x', 'scheme'],
      ['file:///etc/passwd', 'scheme'],
      ['https://user:pw@93.184.215.14/', 'credentials'],
      ['not a url', 'not_a_url'],
      ['http://127.0.0.1:8080/x', 'loopback'],
      ['http://localhost/x', 'loopback'],
      ['http://10.0.0.5/x', 'private'],
      ['http://172.16.3.4/x', 'private'],
      ['http://192.168.1.1/x', 'private'],
      ['http://100.64.0.1/x', 'shared'],
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://0.0.0.0/', 'unspecified'],
      ['http://224.0.0.1/', 'multicast'],
      ['http://[::1]/x', 'loopback'],
      ['http://[::]/x', 'unspecified'],
      ['http://[fe80::1]/x', 'link-local'],
      ['http://[fd12:3456::1]/x', 'unique-local'],
      ['http://[ff02::1]/x', 'multicast'],
      ['http://[::ffff:127.0.0.1]/x', 'loopback'],
      ['http://[::ffff:a00:1]/x', 'private'],
      ['http://[64:ff9b::a9fe:a9fe]/x', 'link-local'],
      ['http://[2002:c0a8:101::1]/x', 'private'],
      ['http://2130706433/x', 'loopback'],
      // The audit's examples (issue #34 item 6): documentation, discard-only and IPv4-translated blocks.
      ['http://192.0.2.1/x', 'documentation'],
      ['http://198.51.100.7/x', 'documentation'],
      ['http://203.0.113.9/x', 'documentation'],
      ['http://[2001:db8::1]/x', 'documentation'],
      ['http://[100::1]/x', 'discard-only'],
      ['http://[::ffff:0:7f00:1]/x', 'loopback'],
    ];
    for (const [url, reason] of refused) {
      const r = await create(u.auth, { url, event_types: ['*'] });
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error, url).toMatchObject({ code: 'WEBHOOK_URL_NOT_ALLOWED', details: { reason } });
    }
    const unresolvable = await create(u.auth, { url: 'https://no-such-host.invalid/hooks', event_types: ['*'] });
    expect(unresolvable.statusCode).toBe(400);
    expect(unresolvable.json().error.code).toBe('WEBHOOK_URL_UNRESOLVABLE');
    for (const ok of ['http://93.184.215.14/x', 'https://[2606:2800:220:1:248:1893:25c8:1946]/x']) expect((await create(u.auth, { url: ok, event_types: ['*'] })).statusCode, ok).toBe(201);
  });

  it('an account has at most 16 endpoints', async () => {
    const u = await signUp(app);
    for (let i = 0; i < 16; i++) expect((await create(u.auth, { url: `https://93.184.215.14/${i}`, event_types: ['*'] })).statusCode).toBe(201);
    const r = await create(u.auth, { url: 'https://93.184.215.14/17', event_types: ['*'] });
    expect(r.statusCode).toBe(409);
    expect(r.json().error.code).toBe('WEBHOOK_ENDPOINT_LIMIT');
  });
});
