import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wantsRawWav } from '../../src/http/routes/media/accept.js';
import { espeakWordsPerMinute, parseEspeakVoices } from '../../src/media/espeak-voices.js';
import { MediaService } from '../../src/media/media-service.js';
import { parseMediaSettings } from '../../src/media/media-settings.js';
import { UpstreamFailure, type EngineProbe, type SpeechEngine } from '../../src/media/ports.js';
import { mediaReadiness } from '../../src/media/readiness.js';
import { Semaphore } from '../../src/media/semaphore.js';
import { redactUpstreamMessage, upstreamError } from '../../src/media/upstream-errors.js';
import { encodeWav, normalizeWav, parseWav, WavError } from '../../src/media/wav.js';

const present: EngineProbe = { available: true, version: '1.51', detail: null };
const absent: EngineProbe = { available: false, version: null, detail: 'espeak-ng was not found on PATH' };

describe('WAV header reading and repair', () => {
  it('parses a canonical PCM file and computes its duration', () => {
    const w = encodeWav(new Int16Array(16_000), 16_000);
    const info = parseWav(w);
    expect(info).toMatchObject({ audioFormat: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16, dataOffset: 44, dataBytes: 32_000 });
    expect(info.durationMs).toBeCloseTo(1000, 9);
    expect(normalizeWav(w).bytes).toBe(w); // already right: no copy
  });

  it('repairs the placeholder sizes that streaming engines write (espeak-ng --stdout)', () => {
    const w = encodeWav(new Int16Array(2205), 22_050);
    const v = new DataView(w.buffer);
    v.setUint32(4, 0x7ffff024, true);
    v.setUint32(40, 0x7ffff000, true);
    const { bytes, info } = normalizeWav(w);
    const out = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(out.getUint32(4, true)).toBe(bytes.length - 8);
    expect(out.getUint32(40, true)).toBe(4410);
    expect(info.durationMs).toBeCloseTo(100, 9);
    expect(v.getUint32(40, true)).toBe(0x7ffff000); // the input is not mutated
  });

  it('skips other chunks (odd sizes padded) before data, and drops a trailing half sample', () => {
    const base = encodeWav(new Int16Array([1, 2, 3, 4]), 8000);
    const list = new Uint8Array([0x4c, 0x49, 0x53, 0x54, 3, 0, 0, 0, 9, 9, 9, 0]); // "LIST", size 3 + pad
    const odd = new Uint8Array(base.length + list.length + 1);
    odd.set(base.subarray(0, 36), 0);
    odd.set(list, 36);
    odd.set(base.subarray(36), 36 + list.length);
    odd[odd.length - 1] = 7;
    const dv = new DataView(odd.buffer);
    dv.setUint32(36 + list.length + 4, 0xffffffff, true);
    const info = parseWav(odd);
    expect(info.dataOffset).toBe(56);
    expect(info.dataBytes).toBe(8);
    expect(normalizeWav(odd).bytes.length).toBe(64);
  });

  it('rejects what is not RIFF/WAVE', () => {
    expect(() => parseWav(new TextEncoder().encode('ID3 not a wav file'))).toThrow(WavError);
    expect(() => parseWav(new Uint8Array(0))).toThrow(/not a RIFF\/WAVE/);
    const noData = encodeWav(new Int16Array(1), 8000).slice(0, 36);
    expect(() => parseWav(noData)).toThrow(/no data chunk/);
  });

  it('property: duration = samples / rate for any canonical file, repaired or not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(8000, 16_000, 22_050, 24_000, 44_100), fc.boolean(), (n, rate, placeholder) => {
        const w = encodeWav(new Int16Array(n), rate);
        if (placeholder) new DataView(w.buffer).setUint32(40, 0xffffffff, true);
        const { info, bytes } = normalizeWav(w);
        expect(info.durationMs).toBeCloseTo((n / rate) * 1000, 6);
        expect(parseWav(bytes).dataBytes).toBe(n * 2);
      }),
    );
  });
});

describe('espeak voice list', () => {
  it('parses `espeak-ng --voices`, skipping the header and variants', () => {
    const text = [
      'Pty Language       Age/Gender VoiceName          File                 Other Languages',
      ' 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn              (zh-cmn 5)(zh 5)',
      ' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)',
      ' 5  variant         --/F      Alicia             !v/Alicia            ',
      ' 5  de              --/F      German             gmw/de               ',
    ].join('\n');
    expect(parseEspeakVoices(text)).toEqual([
      { id: 'cmn', name: 'Chinese (Mandarin, latin as English)', language: 'cmn', gender: 'male' },
      { id: 'en-us', name: 'English (America)', language: 'en-us', gender: 'male' },
      { id: 'de', name: 'German', language: 'de', gender: 'female' },
    ]);
  });

  it('maps speed to espeak words per minute within its range', () => {
    expect(espeakWordsPerMinute(1)).toBe(175);
    expect(espeakWordsPerMinute(0.5)).toBe(88);
    expect(espeakWordsPerMinute(2)).toBe(350);
    expect(espeakWordsPerMinute(0.1)).toBe(80);
  });
});

describe('Accept negotiation for raw WAV', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['audio/wav', true],
    ['audio/x-wav', true],
    ['audio/*;q=0.8, application/json', false],
    ['audio/wav, application/json;q=0.5', true],
    ['audio/wav;q=0', false],
    ['audio/wav, */*', true],
  ])('%s → %s', (accept, raw) => {
    expect(wantsRawWav(accept)).toBe(raw);
  });
});

describe('media settings and readiness', () => {
  it('nothing configured: chat says what to set; tts falls back to espeak when present', () => {
    const s = parseMediaSettings({});
    expect(s.tts.engine).toBe('auto');
    const r = mediaReadiness(s, { espeak: present });
    expect(r.chat.ready).toBe(false);
    expect(r.chat.reasons[0]).toMatch(/CHAT_BASE_URL.*CHAT_API_KEY and CHAT_MODEL/);
    expect(r.tts).toEqual({ ready: true, engine: 'espeak', reasons: [] });
  });

  it('auto without espeak: names both ways out', () => {
    const r = mediaReadiness(parseMediaSettings({}), { espeak: absent });
    expect(r.tts.ready).toBe(false);
    expect(r.tts.reasons[0]).toContain('apt-get install espeak-ng');
    expect(r.tts.reasons[0]).toContain('TTS_BASE_URL, TTS_API_KEY and TTS_MODEL');
  });

  it('auto prefers the configured endpoint; partial endpoint configuration lists what is missing', () => {
    const full = parseMediaSettings({ TTS_BASE_URL: 'https://speech.example/v1/', TTS_API_KEY: 'k', TTS_MODEL: 'tts-1' });
    expect(full.tts.baseUrl).toBe('https://speech.example/v1');
    expect(mediaReadiness(full, { espeak: absent }).tts).toEqual({ ready: true, engine: 'openai', reasons: [] });
    const partial = mediaReadiness(parseMediaSettings({ TTS_BASE_URL: 'https://speech.example/v1' }), { espeak: present });
    expect(partial.tts.ready).toBe(false);
    expect(partial.tts.reasons[0]).toContain('TTS_API_KEY and TTS_MODEL');
  });

  it('partial chat configuration names what is still missing', () => {
    const r = mediaReadiness(parseMediaSettings({ CHAT_BASE_URL: 'https://llm.example/v1' }), { espeak: present });
    expect(r.chat.ready).toBe(false);
    expect(r.chat.reasons).toEqual(['Chat is partly configured: also set CHAT_API_KEY and CHAT_MODEL.']);
  });

  it('chat ready only with URL, key and model', () => {
    const r = mediaReadiness(parseMediaSettings({ CHAT_BASE_URL: 'http://llm:8000/v1', CHAT_API_KEY: 'k', CHAT_MODEL: 'm' }), { espeak: present });
    expect(r.chat).toEqual({ ready: true, reasons: [], model: 'm' });
  });

  it('malformed values are refused with the variable named', () => {
    expect(() => parseMediaSettings({ CHAT_BASE_URL: 'ftp://x' })).toThrow(/CHAT_BASE_URL must use http: or https:/);
    expect(() => parseMediaSettings({ CHAT_BASE_URL: 'https://user:pw@x/v1' })).toThrow(/must not contain credentials/);
    expect(() => parseMediaSettings({ TTS_TIMEOUT_MS: '5' })).toThrow(/TTS_TIMEOUT_MS must be between 100 and 600000/);
    expect(() => parseMediaSettings({ TTS_VOICES: 'alloy, bad voice' })).toThrow(/TTS_VOICES has an invalid voice id/);
    expect(() => parseMediaSettings({ CHAT_MAX_MESSAGE_CHARS: '500', CHAT_MAX_TOTAL_CHARS: '100' })).toThrow(/CHAT_MAX_TOTAL_CHARS/);
    expect(() => parseMediaSettings({ TTS_ENGINE: 'ESPEAK' })).not.toThrow();
  });
});

describe('upstream failure mapping', () => {
  const ctx = { timeoutMs: 1234 };
  it.each([
    [new UpstreamFailure('timeout', 'x'), 'MEDIA_TIMEOUT', 504],
    [new UpstreamFailure('unreachable', 'x'), 'MEDIA_UPSTREAM_UNREACHABLE', 502],
    [new UpstreamFailure('http', 'x', { status: 500 }), 'MEDIA_UPSTREAM_ERROR', 502],
    [new UpstreamFailure('http', 'x', { status: 503 }), 'MEDIA_UPSTREAM_ERROR', 502],
    [new UpstreamFailure('http', 'x', { status: 429, retryAfterSeconds: 3 }), 'MEDIA_UPSTREAM_RATE_LIMITED', 503],
    [new UpstreamFailure('http', 'x', { status: 413 }), 'MEDIA_UPSTREAM_REJECTED', 422],
    [new UpstreamFailure('http', 'x', { status: 404 }), 'MEDIA_UPSTREAM_ERROR', 502],
    [new UpstreamFailure('malformed', 'x'), 'MEDIA_UPSTREAM_ERROR', 502],
    [new UpstreamFailure('too_large', 'x'), 'MEDIA_UPSTREAM_ERROR', 502],
    [new UpstreamFailure('engine', 'x'), 'TTS_ENGINE_FAILED', 500],
    [new Error('bug'), 'MEDIA_UPSTREAM_ERROR', 502],
  ])('%s → %s', (err, code, status) => {
    const e = upstreamError('chat', err, ctx);
    expect(e.code).toBe(code);
    expect(e.statusCode).toBe(status);
  });

  it('Retry-After is passed on, clamped to 1..300 s', () => {
    expect(upstreamError('chat', new UpstreamFailure('http', 'x', { status: 429, retryAfterSeconds: 3 }), ctx).headers['retry-after']).toBe('3');
    expect(upstreamError('chat', new UpstreamFailure('http', 'x', { status: 429, retryAfterSeconds: 9999 }), ctx).headers['retry-after']).toBe('300');
    expect(upstreamError('chat', new UpstreamFailure('http', 'x', { status: 429 }), ctx).headers['retry-after']).toBe('5');
  });

  it('redacts key-like strings from upstream messages', () => {
    const m = redactUpstreamMessage('bad key sk-proj-AbCdEf0123456789 and token ' + 'x'.repeat(40));
    expect(m).not.toContain('AbCdEf0123456789');
    expect(m).not.toContain('x'.repeat(40));
    expect(m).toContain('bad key');
  });
});

describe('semaphore', () => {
  it('bounds concurrency and the queue, handing slots over in order', async () => {
    const s = new Semaphore(1, 1);
    const first = await s.tryAcquire();
    const second = s.tryAcquire();
    expect(second).toBeDefined();
    expect(s.tryAcquire()).toBeUndefined();
    expect(s.queued).toBe(1);
    first?.();
    first?.(); // releasing twice is harmless
    const r2 = await second;
    expect(s.inFlight).toBe(1);
    r2?.();
    expect(s.inFlight).toBe(0);
  });
});

describe('MediaService with in-memory engines', () => {
  function engine(over: Partial<SpeechEngine> = {}): SpeechEngine {
    return {
      name: 'espeak',
      defaultVoice: 'en-us',
      voices: async () => [{ id: 'en-us', name: 'English', language: 'en-us', gender: 'male' }],
      synthesize: async () => encodeWav(new Int16Array(800), 8000),
      ...over,
    };
  }

  it('probes the local engine once and reuses the answer', async () => {
    let probes = 0;
    const svc = new MediaService(parseMediaSettings({}), {
      espeak: engine(),
      probeEspeak: async () => {
        probes += 1;
        return present;
      },
    });
    await svc.readiness();
    await svc.readiness();
    expect(probes).toBe(1);
  });

  it('re-probes a missing engine after 30 s, so installing it needs no restart', async () => {
    let now = 0;
    let installed = false;
    const svc = new MediaService(parseMediaSettings({}), { espeak: engine(), probeEspeak: async () => (installed ? present : absent), now: () => now });
    expect((await svc.readiness()).tts.ready).toBe(false);
    installed = true;
    now = 10_000;
    expect((await svc.readiness()).tts.ready).toBe(false);
    now = 31_000;
    expect((await svc.readiness()).tts.ready).toBe(true);
  });

  it('voice ids match case-insensitively and come back canonical; control characters become spaces', async () => {
    let seen = '';
    const svc = new MediaService(parseMediaSettings({}), {
      espeak: engine({
        synthesize: async (r) => {
          seen = r.text;
          return encodeWav(new Int16Array(8), 8000);
        },
      }),
      probeEspeak: async () => present,
    });
    const out = await svc.speak({ text: 'a\u0000b\u001bc\nd', voice: 'EN-US' });
    expect(out.voice).toBe('en-us');
    expect(seen).toBe('a b c\nd');
    expect(out.wav.durationMs).toBeCloseTo(1, 9);
  });

  it('too many concurrent requests → MEDIA_BUSY with Retry-After', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const svc = new MediaService(parseMediaSettings({ TTS_MAX_CONCURRENCY: '1', TTS_MAX_QUEUE: '0' }), {
      espeak: engine({
        synthesize: async () => {
          await gate;
          return encodeWav(new Int16Array(8), 8000);
        },
      }),
      probeEspeak: async () => present,
    });
    const first = svc.speak({ text: 'one' });
    await new Promise((r) => setImmediate(r));
    await expect(svc.speak({ text: 'two' })).rejects.toMatchObject({ code: 'MEDIA_BUSY', statusCode: 503, headers: { 'retry-after': '1' } });
    release();
    expect((await first).engine).toBe('espeak');
    expect((await svc.speak({ text: 'three' })).engine).toBe('espeak');
  });
});
