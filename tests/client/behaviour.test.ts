import { describe, expect, it } from 'vitest';
import { createClient, QrailApiError } from '../../packages/client/src/index.js';
import { JobsAuth } from '../../packages/client/src/jobs-auth.js';
import { parseRetryAfter } from '../../packages/client/src/transport.js';

/**
 * The hand-written layer against a scripted server (an injected `fetch`): retries and their
 * bounds, idempotency keys, credentials, waiting, and the three error shapes.
 */

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network-error';

function scripted(replies: Reply[]): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const fake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    seen.push({
      method: init?.method ?? 'GET',
      url: input instanceof Request ? input.url : input.toString(),
      headers: Object.fromEntries(headers),
      body: typeof init?.body === 'string' ? init.body : undefined,
    });
    const reply = replies.shift() ?? { status: 500, body: { error: { code: 'INTERNAL', message: 'script ran out' }, request_id: 'x' } };
    if (reply === 'network-error') throw new TypeError('fetch failed');
    const text = reply.body === undefined ? null : JSON.stringify(reply.body);
    return new Response(text, { status: reply.status, headers: { 'content-type': 'application/json', ...reply.headers } });
  };
  return { fetch: fake, seen };
}

const ok = (data: unknown): Reply => ({ status: 200, body: { status: 'ok', data, meta: { version: '0', request_id: 'r', processing_time_ms: 1 } } });
const platformError = (status: number, code: string, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'x-request-id': 'req-h', ...headers },
  body: {
    status: 'error',
    error: { code, message: `${code}!`, details: [{ in: 'body', path: '/circuit/gates/0/op', code: 'UNKNOWN_GATE', message: 'unknown gate' }] },
    meta: { version: '0', request_id: 'req-1', processing_time_ms: 1 },
  },
});
const fast = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 2000 };
const base = 'http://qrail.test/';
const payment = { amount: '10.00', payment_method: 'pm_card_visa' };

describe('retries', () => {
  it('a money-moving POST is retried on 429 and 503 with the same Idempotency-Key, honouring Retry-After', async () => {
    const { fetch, seen } = scripted([platformError(429, 'RATE_LIMITED', { 'retry-after': '0' }), platformError(503, 'STORE_UNAVAILABLE'), ok({ credited: true })]);
    const qrail = createClient({ baseUrl: base, token: 'qrs_t', fetch, retry: fast });
    const started = Date.now();
    expect(await qrail.billing.paymentIntent(payment)).toEqual({ credited: true });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]?.url).toBe('http://qrail.test/v1/billing/processor/payment-intent');
    expect(seen[0]?.headers['authorization']).toBe('Bearer qrs_t');
  });

  it('waits what Retry-After says', async () => {
    const { fetch, seen } = scripted([platformError(429, 'RATE_LIMITED', { 'retry-after': '1' }), ok({ available: '1.000000' })]);
    const qrail = createClient({ baseUrl: base, fetch, retry: fast });
    const started = Date.now();
    await qrail.billing.wallet();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
  });

  it('is bounded: after maxRetries the last error is thrown, with its Retry-After', async () => {
    const { fetch, seen } = scripted(Array.from({ length: 5 }, () => platformError(503, 'SERVICE_DRAINING', { 'retry-after': '0' })));
    const err = await createClient({ baseUrl: base, fetch, retry: { ...fast, maxRetries: 2 } })
      .billing.wallet()
      .catch((e: unknown) => e);
    expect(QrailApiError.is(err, 'SERVICE_DRAINING')).toBe(true);
    expect(seen).toHaveLength(3);
  });

  it('a Retry-After beyond maxRetryAfterMs is not waited for', async () => {
    const { fetch, seen } = scripted([platformError(429, 'RATE_LIMITED', { 'retry-after': '3600' })]);
    const err = await createClient({ baseUrl: base, fetch, retry: fast })
      .circuits.schema()
      .catch((e: unknown) => e);
    if (!QrailApiError.is(err, 'RATE_LIMITED')) throw new Error('expected RATE_LIMITED');
    expect(err.retryAfterMs).toBe(3_600_000);
    expect(seen).toHaveLength(1);
  });

  it('never repeats a POST without a key (login, register) — not on 503, not on a network error', async () => {
    const a = scripted([platformError(503, 'STORE_UNAVAILABLE')]);
    expect(
      QrailApiError.is(
        await createClient({ baseUrl: base, fetch: a.fetch, retry: fast })
          .auth.login('a@b.c', 'pw')
          .catch((e: unknown) => e),
        'STORE_UNAVAILABLE',
      ),
    ).toBe(true);
    expect(a.seen).toHaveLength(1);
    const b = scripted(['network-error']);
    await expect(createClient({ baseUrl: base, fetch: b.fetch, retry: fast }).auth.register('a@b.c', 'pw')).rejects.toThrow('fetch failed');
    expect(b.seen).toHaveLength(1);
  });

  it('repeats a keyed POST after a network error (the key makes it act once) and a pure computation', async () => {
    const { fetch, seen } = scripted(['network-error', { status: 202, body: { job_id: 'j' } }, 'network-error', ok({ valid: true })]);
    const qrail = createClient({ baseUrl: base, jobsToken: 'qrj_secret', fetch, retry: fast });
    await qrail.jobs.submit({ capability_id: 'circuit.simulate', max_total_price: '0.01', request: {} });
    expect(seen[0]?.body).toBe(seen[1]?.body);
    expect(JSON.parse(seen[0]?.body ?? '{}').idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]?.headers['authorization']).toBe('Bearer qrj_secret');
    await qrail.circuits.validate({ circuit: { format: 'qasm2', source: 'OPENQASM 2.0;' } });
    expect(seen).toHaveLength(4);
  });

  it('a keyed POST whose first attempt is still running (409 IN_FLIGHT) is asked again; another 409 is thrown', async () => {
    const { fetch, seen } = scripted([platformError(409, 'IDEMPOTENCY_KEY_IN_FLIGHT', { 'retry-after': '0' }), ok({ credited: true }), platformError(409, 'INSUFFICIENT_BALANCE')]);
    const qrail = createClient({ baseUrl: base, token: 't', fetch, retry: fast });
    expect(await qrail.billing.paymentIntent(payment)).toEqual({ credited: true });
    expect(seen).toHaveLength(2);
    await expect(qrail.billing.hold({ quote_id: 'q' })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 409 });
    expect(seen).toHaveLength(3);
  });

  it('retry: false sends once', async () => {
    const { fetch, seen } = scripted([platformError(503, 'STORE_UNAVAILABLE'), ok({})]);
    await expect(createClient({ baseUrl: base, fetch, retry: false }).billing.wallet()).rejects.toBeInstanceOf(QrailApiError);
    expect(seen).toHaveLength(1);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('idempotency keys', () => {
  it('each call gets its own key; a key given in the options is sent as is', async () => {
    const { fetch, seen } = scripted([ok({}), ok({}), ok({})]);
    const qrail = createClient({ baseUrl: base, fetch });
    await qrail.billing.quote({ provider: 'provider-two', device: 'p2-grid-9', shots: 10 });
    await qrail.billing.quote({ provider: 'provider-two', device: 'p2-grid-9', shots: 10 });
    await qrail.billing.hold({ quote_id: 'q' }, { idempotencyKey: 'mine' });
    expect(seen[0]?.headers['idempotency-key']).not.toBe(seen[1]?.headers['idempotency-key']);
    expect(seen[2]?.headers['idempotency-key']).toBe('mine');
  });

  it('execution gets a client_token when none is given; GETs and unkeyed POSTs get no header', async () => {
    const { fetch, seen } = scripted([ok({}), ok({}), ok({})]);
    const qrail = createClient({ baseUrl: base, fetch, idempotencyKey: () => 'k-1' });
    await qrail.execution.runProviderOne({ circuit: { format: 'qasm2', source: '' } });
    await qrail.execution.getJob('provider-one', 'a/b');
    await qrail.circuits.analyze({ circuit: { format: 'qasm2', source: '' } });
    expect(JSON.parse(seen[0]?.body ?? '{}').client_token).toBe('k-1');
    expect(seen[1]?.url).toBe('http://qrail.test/v1/execute/provider-one/a%2Fb');
    expect(seen.slice(1).map((s) => s.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });
});

describe('Account Jobs credentials', () => {
  const token = (access: string, expiresIn = 900): Reply => ({ status: 200, body: { access_token: access, token_type: 'Bearer', expires_in: expiresIn, scope: 'jobs:read jobs:write' } });
  const balance: Reply = { status: 200, body: { available: '1.000000' } };

  it('exchanges client credentials once for many requests, and again after a 401', async () => {
    const { fetch, seen } = scripted([token('at-1'), balance, balance, { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'expired' }, request_id: 'r' } }, token('at-2'), balance]);
    const qrail = createClient({ baseUrl: base, fetch, clientCredentials: { clientId: 'cid', clientSecret: 'qrj_s' } });
    await Promise.all([qrail.jobs.balance(), qrail.jobs.balance()]);
    await qrail.jobs.balance();
    expect(seen.map((s) => `${s.method} ${new URL(s.url).pathname} ${s.headers['authorization'] ?? '-'}`)).toEqual([
      'POST /v1/oauth/token -',
      'GET /v1/account/balance Bearer at-1',
      'GET /v1/account/balance Bearer at-1',
      'GET /v1/account/balance Bearer at-1',
      'POST /v1/oauth/token -',
      'GET /v1/account/balance Bearer at-2',
    ]);
    expect(JSON.parse(seen[0]?.body ?? '{}')).toEqual({ grant_type: 'client_credentials', client_id: 'cid', client_secret: 'qrj_s' });
  });

  it('renews the access token before it expires', async () => {
    let now = 0;
    const tokens = ['at-1', 'at-2'];
    const auth = new JobsAuth(60_000, () => now);
    auth.useSource('credentials', async () => ({ access_token: tokens.shift() ?? 'none', token_type: 'Bearer', expires_in: 900, scope: '' }));
    expect((await auth.bearer(false))?.token).toBe('at-1');
    now = 839_000; // 61 s left
    expect((await auth.bearer(false))?.token).toBe('at-1');
    now = 841_000; // 59 s left: inside the margin
    expect((await auth.bearer(false))?.token).toBe('at-2');
  });

  it('a person’s session is exchanged for a Jobs token (RFC 8693), renewed from the session, and ends with it', async () => {
    const { fetch, seen } = scripted([
      ok({ token: 'qrs_person' }),
      token('at-s1'),
      balance,
      { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'expired' }, request_id: 'r' } },
      token('at-s2'),
      balance,
      ok({ revoked: true }),
    ]);
    const qrail = createClient({ baseUrl: base, fetch });
    await qrail.auth.login('a@b.c', 'pw');
    expect((await qrail.auth.exchangeSession({ scope: 'jobs:read' })).access_token).toBe('at-s1');
    await qrail.jobs.balance();
    await qrail.jobs.balance();
    await qrail.auth.logout();
    expect(await qrail.auth.jobsToken()).toBeUndefined();
    expect(JSON.parse(seen[1]?.body ?? '{}')).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: 'qrs_person',
      subject_token_type: 'urn:qrail:params:oauth:token-type:session',
      scope: 'jobs:read',
    });
    expect(seen.map((s) => `${new URL(s.url).pathname} ${s.headers['authorization'] ?? '-'}`)).toEqual([
      '/v1/auth/login -',
      '/v1/oauth/token -',
      '/v1/account/balance Bearer at-s1',
      '/v1/account/balance Bearer at-s1',
      '/v1/oauth/token -',
      '/v1/account/balance Bearer at-s2',
      '/v1/auth/logout Bearer qrs_person',
    ]);
  });

  it('when the token cannot be renewed, the 401 is the answer', async () => {
    const refused: Reply = { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'revoked', details: { reason: 'revoked' } }, request_id: 'r401' } };
    const { fetch, seen } = scripted([token('at-1'), refused, { status: 400, body: { error: 'invalid_client', error_description: 'revoked' } }]);
    const err = await createClient({ baseUrl: base, fetch, clientCredentials: { clientId: 'c', clientSecret: 's' }, retry: false })
      .jobs.list()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, requestId: 'r401' });
    expect(seen).toHaveLength(3);
  });

  it('a token that is not renewable (a machine credential secret) is not retried on 401', async () => {
    const { fetch, seen } = scripted([{ status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'revoked', details: { reason: 'revoked' } }, request_id: 'rid' } }]);
    const err = await createClient({ baseUrl: base, fetch, jobsToken: 'qrj_old' })
      .jobs.get('j1')
      .catch((e: unknown) => e);
    if (!QrailApiError.is(err, 'UNAUTHENTICATED')) throw new Error('expected UNAUTHENTICATED');
    expect(err).toMatchObject({ shape: 'jobs', requestId: 'rid', details: { reason: 'revoked' }, path: '/v1/jobs/{job_id}' });
    expect(seen).toHaveLength(1);
  });
});

describe('errors', () => {
  it('the platform envelope: code, request id, problems with their JSON paths', async () => {
    const { fetch } = scripted([platformError(400, 'CIRCUIT_INVALID')]);
    const err = await createClient({ baseUrl: base, fetch })
      .circuits.analyze({ circuit: { format: 'qasm2', source: '' } })
      .catch((e: unknown) => e);
    if (!QrailApiError.is(err, 'CIRCUIT_INVALID')) throw new Error('expected CIRCUIT_INVALID');
    expect(err).toMatchObject({ status: 400, shape: 'platform', requestId: 'req-1', method: 'POST', path: '/v1/circuits/analyze' });
    expect(err.problems.map((p) => p.path)).toEqual(['/circuit/gates/0/op']);
    expect(err.message).toBe('POST /v1/circuits/analyze: 400 CIRCUIT_INVALID: CIRCUIT_INVALID!');
    expect(err.serverMessage).toBe('CIRCUIT_INVALID!');
  });

  it('OAuth’s error shape, and an answer that is not JSON', async () => {
    const { fetch } = scripted([{ status: 401, body: { error: 'invalid_client', error_description: 'unknown client' }, headers: { 'x-request-id': 'oauth-1' } }]);
    const err = await createClient({ baseUrl: base, fetch })
      .auth.issueAccessToken({ clientId: 'x', clientSecret: 'y' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid_client', shape: 'oauth', requestId: 'oauth-1', status: 401 });

    const html = async () => new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    const e2 = await createClient({ baseUrl: base, fetch: html })
      .billing.wallet()
      .catch((e: unknown) => e);
    expect(e2).toMatchObject({ code: 'HTTP_502', shape: 'unknown', body: '<html>bad gateway</html>' });
  });
});

describe('waitForJob', () => {
  const job = (status: string): Reply => ({ status: 200, body: { job_id: 'j1', status } });

  it('polls until the job is finished, reporting each read', async () => {
    const { fetch, seen } = scripted([job('queued'), job('running'), job('completed')]);
    const progress: string[] = [];
    const done = await createClient({ baseUrl: base, fetch, jobsToken: 't' }).jobs.waitForJob('j1', { intervalMs: 1, onProgress: (j) => progress.push(j.status) });
    expect(done.status).toBe('completed');
    expect(progress).toEqual(['queued', 'running', 'completed']);
    expect(seen).toHaveLength(3);
  });

  it('stops when its signal aborts', async () => {
    const { fetch } = scripted(Array.from({ length: 100 }, () => job('running')));
    const ctl = new AbortController();
    const wait = createClient({ baseUrl: base, fetch, jobsToken: 't' }).jobs.waitForJob('j1', { intervalMs: 50, signal: ctl.signal, onProgress: () => ctl.abort(new Error('enough')) });
    await expect(wait).rejects.toThrow('enough');
  });
});
