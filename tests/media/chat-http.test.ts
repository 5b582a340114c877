import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { createMediaService } from '../../src/media/adapters/create-media-service.js';
import { FakeOpenAi, completion, json } from './fake-openai.js';

const KEY = 'sk-test-0123456789abcdefghijklmnopqrstuv';

describe('POST /v1/chat against a local OpenAI-compatible server', () => {
  const fake = new FakeOpenAi();
  let app: App;
  let auth: { authorization: string };

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({
      CHAT_BASE_URL: fake.baseUrl,
      CHAT_API_KEY: KEY,
      CHAT_MODEL: 'fake-model',
      // Generous: the machine may be loaded; the timeout tests use their own app below.
      CHAT_TIMEOUT_MS: '20000',
      CHAT_MAX_MESSAGE_CHARS: '100',
      CHAT_MAX_TOTAL_CHARS: '150',
      CHAT_MAX_MESSAGES: '4',
      CHAT_MAX_TOKENS: '256',
      TTS_ENGINE: 'off',
    });
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });

  const ask = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload });
  const hello = {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is a qubit?' },
    ],
  };

  it('forwards the conversation and returns the reply and token usage', async () => {
    fake.handler = (_req, res) => json(res, 200, completion('A two-level quantum system.'));
    const r = await ask({ ...hello, max_tokens: 64, temperature: 0.2 });
    expect(r.statusCode).toBe(200);
    const b = r.json();
    expect(b.status).toBe('ok');
    expect(b.data).toEqual({
      reply: { role: 'assistant', content: 'A two-level quantum system.' },
      finish_reason: 'stop',
      model: 'fake-model-2024-01-01',
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toEqual({ model: 'fake-model', messages: hello.messages, stream: false, max_tokens: 64, temperature: 0.2 });
  });

  it('reports usage as null when the upstream does not send it', async () => {
    fake.handler = (_req, res) => json(res, 200, completion('ok', null));
    const r = await ask(hello);
    expect(r.statusCode).toBe(200);
    expect(r.json().data.usage).toBeNull();
    expect(r.json().data.reply.content).toBe('ok');
  });

  it('upstream 500 → 502 MEDIA_UPSTREAM_ERROR without the upstream text', async () => {
    fake.handler = (_req, res) => json(res, 500, { error: { message: 'internal trace at /srv/llm/worker.py:42', type: 'server_error' } });
    const r = await ask(hello);
    expect(r.statusCode).toBe(502);
    const e = r.json().error;
    expect(e.code).toBe('MEDIA_UPSTREAM_ERROR');
    expect(e.details).toMatchObject({ service: 'chat', reason: 'http', upstream_status: 500, upstream_type: 'server_error' });
    expect(r.body).not.toContain('worker.py');
    expect(r.json().status).toBe('error');
  });

  it('upstream 429 → 503 MEDIA_UPSTREAM_RATE_LIMITED with the upstream Retry-After', async () => {
    fake.handler = (_req, res) => json(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '7' });
    const r = await ask(hello);
    expect(r.statusCode).toBe(503);
    expect(r.json().error.code).toBe('MEDIA_UPSTREAM_RATE_LIMITED');
    expect(r.json().error.details).toMatchObject({ upstream_status: 429, upstream_code: 'rate_limit_exceeded' });
    expect(r.headers['retry-after']).toBe('7');
  });

  it('upstream 400 (context too long) → 422 MEDIA_UPSTREAM_REJECTED with the reason, keys redacted', async () => {
    fake.handler = (_req, res) =>
      json(res, 400, { error: { message: 'maximum context length is 8 tokens (key sk-abcdefghijklmnop123)', type: 'invalid_request_error', code: 'context_length_exceeded' } });
    const r = await ask(hello);
    expect(r.statusCode).toBe(422);
    const e = r.json().error;
    expect(e.code).toBe('MEDIA_UPSTREAM_REJECTED');
    expect(e.details.upstream_code).toBe('context_length_exceeded');
    expect(e.details.upstream_message).toContain('maximum context length');
    expect(r.body).not.toContain('sk-abcdefghijklmnop123');
  });

  it('upstream 401 → 502 naming CHAT_API_KEY, never the key', async () => {
    fake.handler = (_req, res) => json(res, 401, { error: { message: `Incorrect API key provided: ${KEY}`, code: 'invalid_api_key' } });
    const r = await ask(hello);
    expect(r.statusCode).toBe(502);
    expect(r.json().error.code).toBe('MEDIA_UPSTREAM_ERROR');
    expect(r.json().error.message).toContain('CHAT_API_KEY');
    expect(r.body).not.toContain(KEY);
    expect(r.body).not.toContain('0123456789abcdef');
  });

  it('a 200 that is not a chat completion → 502 MEDIA_UPSTREAM_ERROR (malformed)', async () => {
    fake.handler = (_req, res) => json(res, 200, { hello: 'world' });
    const r = await ask(hello);
    expect(r.statusCode).toBe(502);
    expect(r.json().error.details.reason).toBe('malformed');
  });

  it('limits: long message, total length, too many messages, bad role → 400 with paths', async () => {
    fake.handler = (_req, res) => json(res, 200, completion('never'));
    const long = await ask({ messages: [{ role: 'user', content: 'x'.repeat(101) }] });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.code).toBe('VALIDATION_FAILED');
    expect(long.json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/messages/0/content', code: 'TOO_LONG' })]));

    const total = await ask({
      messages: [
        { role: 'user', content: 'y'.repeat(80) },
        { role: 'user', content: 'z'.repeat(80) },
      ],
    });
    expect(total.statusCode).toBe(400);
    expect(total.json().error.details).toEqual([expect.objectContaining({ path: '/messages', code: 'TOO_LONG' })]);

    const many = await ask({ messages: Array.from({ length: 5 }, () => ({ role: 'user', content: 'hi' })) });
    expect(many.statusCode).toBe(400);
    expect(many.json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/messages', code: 'TOO_MANY_ITEMS' })]));

    const role = await ask({ messages: [{ role: 'tool', content: 'hi' }], max_tokens: 100000 });
    expect(role.statusCode).toBe(400);
    const paths = role.json().error.details.map((d: { path: string }) => d.path);
    expect(paths).toContain('/messages/0/role');
    expect(paths).toContain('/max_tokens');

    const noUser = await ask({ messages: [{ role: 'system', content: 'only a system prompt' }] });
    expect(noUser.statusCode).toBe(400);
    expect(noUser.json().error.details).toEqual([expect.objectContaining({ path: '/messages', code: 'NO_USER_MESSAGE' })]);
    expect(fake.requests).toHaveLength(0);
  });

  it('requires a session', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/chat', payload: hello });
    expect(r.statusCode).toBe(401);
    expect(r.json().error.code).toBe('UNAUTHENTICATED');
  });

  it('capabilities report chat ready with the model', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/media/capabilities', headers: auth });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.chat).toMatchObject({ ready: true, reasons: [], model: 'fake-model', limits: { max_messages: 4, max_message_chars: 100, max_total_chars: 150, max_tokens: 256 } });
    expect(r.json().data.tts).toMatchObject({ ready: false, engine: null });
    expect(r.json().data.tts.reasons[0]).toContain('TTS_ENGINE=off');
  });
});

describe('POST /v1/chat timeouts (a server that never answers)', () => {
  const fake = new FakeOpenAi();
  let app: App;
  let auth: { authorization: string };
  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({ CHAT_BASE_URL: fake.baseUrl, CHAT_API_KEY: KEY, CHAT_MODEL: 'm', CHAT_TIMEOUT_MS: '500', TTS_ENGINE: 'off' });
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });
  const hello = { messages: [{ role: 'user', content: 'hi' }] };

  it('no answer at all → 504 MEDIA_TIMEOUT', async () => {
    fake.handler = () => undefined;
    const r = await app.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload: hello });
    expect(r.statusCode).toBe(504);
    expect(r.json().error.code).toBe('MEDIA_TIMEOUT');
    expect(r.json().error.details).toMatchObject({ service: 'chat', timeout_ms: 500 });
    expect(r.json().error.message).toContain('500 ms');
  });

  it('a body that stalls after the headers also times out', async () => {
    fake.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"x","choices":[');
    };
    const r = await app.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload: hello });
    expect(r.statusCode).toBe(504);
    expect(r.json().error.code).toBe('MEDIA_TIMEOUT');
  });
});

describe('POST /v1/chat when the upstream is down or not configured', () => {
  it('connection refused → 502 MEDIA_UPSTREAM_UNREACHABLE', async () => {
    const fake = await new FakeOpenAi().start();
    const url = fake.baseUrl;
    await fake.stop(); // the port is now closed
    const app = await buildTestApp({ CHAT_BASE_URL: url, CHAT_API_KEY: KEY, CHAT_MODEL: 'm', TTS_ENGINE: 'off' });
    try {
      const { auth } = await signUp(app);
      const r = await app.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload: { messages: [{ role: 'user', content: 'hi' }] } });
      expect(r.statusCode).toBe(502);
      expect(r.json().error.code).toBe('MEDIA_UPSTREAM_UNREACHABLE');
    } finally {
      await app.close();
    }
  });

  it('not configured → 503 FEATURE_UNAVAILABLE saying what to set (chat and tts); the media bucket is rate limited', async () => {
    const app = await buildTestApp({ TTS_ENGINE: 'off', MEDIA_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const { auth } = await signUp(app);
      const r = await app.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload: { messages: [{ role: 'user', content: 'hi' }] } });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('FEATURE_UNAVAILABLE');
      expect(r.json().error.message).toContain('CHAT_BASE_URL');
      expect(r.json().error.details).toMatchObject({ feature: 'chat' });

      const t = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
      expect(t.statusCode).toBe(503);
      expect(t.json().error.code).toBe('FEATURE_UNAVAILABLE');
      expect(t.json().error.message).toContain('TTS_ENGINE');
      expect(t.json().error.details.feature).toBe('tts');
      const v = await app.inject({ method: 'GET', url: '/v1/tts/voices', headers: auth });
      expect(v.statusCode).toBe(503); // not in the media bucket

      const third = await app.inject({ method: 'POST', url: '/v1/chat', headers: auth, payload: { messages: [{ role: 'user', content: 'hi' }] } });
      expect(third.statusCode).toBe(503);
      const fourth = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
      expect(fourth.statusCode).toBe(429);
      expect(fourth.json().error.code).toBe('RATE_LIMITED');
      expect(fourth.headers['ratelimit-limit']).toBe('3');
    } finally {
      await app.close();
    }
  });

  it('malformed media configuration refuses to start with a clear message', async () => {
    expect(() => createMediaService({ CHAT_BASE_URL: 'not a url' })).toThrow(/CHAT_BASE_URL must be an http\(s\) URL/);
    expect(() => createMediaService({ TTS_ENGINE: 'festival' })).toThrow(/TTS_ENGINE must be one of auto, espeak, openai, off/);
    expect(() => createMediaService({ CHAT_TIMEOUT_MS: '5s' })).toThrow(/CHAT_TIMEOUT_MS must be an integer, got "5s"/);
    // …and the app itself does not start with it.
    await expect(buildTestApp({ TTS_ENGINE: 'festival' })).rejects.toThrow(/Invalid configuration: TTS_ENGINE/);
  });
});
