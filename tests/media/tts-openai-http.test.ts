import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { FakeOpenAi, json, readWavHeader, streamedWav } from './fake-openai.js';

describe('POST /v1/tts through an OpenAI-compatible /audio/speech endpoint', () => {
  const fake = new FakeOpenAi();
  let app: App;
  let auth: { authorization: string };

  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({
      TTS_BASE_URL: fake.baseUrl,
      TTS_API_KEY: 'tts-key-123',
      TTS_MODEL: 'tts-fake',
      TTS_VOICES: 'alloy,nova',
      TTS_TIMEOUT_MS: '20000', // generous; the timeout case has its own app below
      TTS_MAX_CHARS: '50',
    });
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
    await fake.stop();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.handler = (_req, res) => {
      const wav = streamedWav(2400); // 0.1 s at 24 kHz, sizes left as streaming placeholders
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(wav.length) });
      res.end(wav);
    };
  });

  it('returns base64 WAV in the envelope with a repaired header and its duration', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello qubits', voice: 'nova', speed: 1.25 } });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d).toMatchObject({ mime_type: 'audio/wav', engine: 'openai', voice: 'nova', sample_rate: 24000, channels: 1, bits_per_sample: 16 });
    const wav = Buffer.from(d.audio_base64, 'base64');
    expect(d.bytes).toBe(wav.length);
    const h = readWavHeader(wav);
    expect(h.riff).toBe('RIFF');
    expect(h.wave).toBe('WAVE');
    expect(h.riffSize).toBe(wav.length - 8);
    expect(h.dataSize).toBe(4800);
    expect(h.durationMs).toBeCloseTo(100, 6);
    expect(d.duration_ms).toBeCloseTo(100, 6);

    const sent = fake.requests[0];
    expect(sent?.url).toBe('/v1/audio/speech');
    expect(sent?.headers.authorization).toBe('Bearer tts-key-123');
    expect(sent?.body).toEqual({ model: 'tts-fake', input: 'Hello qubits', voice: 'nova', response_format: 'wav', speed: 1.25 });
  });

  it('sends raw audio/wav bytes when the client asks for them', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: { ...auth, accept: 'audio/wav' }, payload: { text: 'Hello' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('audio/wav');
    expect(r.headers['x-tts-engine']).toBe('openai');
    expect(r.headers['x-tts-voice']).toBe('alloy');
    const h = readWavHeader(r.rawPayload);
    expect(h.riff + h.wave).toBe('RIFFWAVE');
    expect(h.durationMs).toBeGreaterThan(0);
    expect(Number(r.headers['content-length'])).toBe(r.rawPayload.length);
  });

  it('voices come from TTS_VOICES; an unknown voice is a 400 at /voice', async () => {
    const v = await app.inject({ method: 'GET', url: '/v1/tts/voices', headers: auth });
    expect(v.json().data).toMatchObject({ engine: 'openai', default_voice: 'alloy' });
    expect(v.json().data.voices.map((x: { id: string }) => x.id)).toEqual(['alloy', 'nova']);
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello', voice: 'shimmer' } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details).toEqual([expect.objectContaining({ path: '/voice', code: 'UNKNOWN_VOICE' })]);
    expect(fake.requests).toHaveLength(0);
  });

  it('text limits → 400 with /text', async () => {
    const long = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'a'.repeat(51) } });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.details).toEqual([expect.objectContaining({ path: '/text', code: 'TOO_LONG' })]);
    const blank = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: ' \u0001\u0007 ' } });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.details).toEqual([expect.objectContaining({ path: '/text', code: 'EMPTY' })]);
    const speed = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'hi', speed: 5, extra: 1 } });
    expect(speed.statusCode).toBe(400);
    const paths = speed.json().error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/speed', '/extra']));
  });

  it('a 200 that is not WAV → 502 MEDIA_UPSTREAM_ERROR (not_wav)', async () => {
    fake.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(Buffer.from('ID3\u0004fake mp3'));
    };
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
    expect(r.statusCode).toBe(502);
    expect(r.json().error).toMatchObject({ code: 'MEDIA_UPSTREAM_ERROR', details: { reason: 'not_wav', engine: 'openai' } });
  });

  it('upstream 500 and 429 map to stable codes (errors stay JSON even with Accept: audio/wav)', async () => {
    fake.handler = (_req, res) => json(res, 500, { error: { message: 'boom' } });
    const e500 = await app.inject({ method: 'POST', url: '/v1/tts', headers: { ...auth, accept: 'audio/wav' }, payload: { text: 'Hello' } });
    expect(e500.statusCode).toBe(502);
    expect(e500.headers['content-type']).toContain('application/json');
    expect(e500.json().error.code).toBe('MEDIA_UPSTREAM_ERROR');

    fake.handler = (_req, res) => json(res, 429, { error: { message: 'slow down' } });
    const e429 = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
    expect(e429.statusCode).toBe(503);
    expect(e429.json().error.code).toBe('MEDIA_UPSTREAM_RATE_LIMITED');
    expect(Number(e429.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('capabilities report tts ready on the openai engine', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/media/capabilities', headers: auth });
    expect(r.json().data.tts).toMatchObject({ ready: true, engine: 'openai', reasons: [], formats: ['audio/wav'], limits: { max_chars: 50 } });
  });
});

describe('POST /v1/tts upstream timeout and missing configuration', () => {
  it('a speech endpoint that never answers → 504 MEDIA_TIMEOUT', async () => {
    const fake = await new FakeOpenAi().start();
    fake.handler = () => undefined;
    const app = await buildTestApp({ TTS_BASE_URL: fake.baseUrl, TTS_API_KEY: 'k', TTS_MODEL: 'm', TTS_TIMEOUT_MS: '500' });
    try {
      const { auth } = await signUp(app);
      const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
      expect(r.statusCode).toBe(504);
      expect(r.json().error).toMatchObject({ code: 'MEDIA_TIMEOUT', details: { service: 'tts', engine: 'openai', timeout_ms: 500 } });
    } finally {
      await app.close();
      await fake.stop();
    }
  });

  it('TTS_ENGINE=openai without the endpoint → 503 naming TTS_BASE_URL, TTS_API_KEY and TTS_MODEL', async () => {
    const app = await buildTestApp({ TTS_ENGINE: 'openai' });
    try {
      const { auth } = await signUp(app);
      const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('FEATURE_UNAVAILABLE');
      expect(r.json().error.message).toMatch(/TTS_BASE_URL and TTS_API_KEY and TTS_MODEL/);
    } finally {
      await app.close();
    }
  });
});
