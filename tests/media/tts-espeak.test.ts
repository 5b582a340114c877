import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp, signUp } from '../helpers/app.js';
import { readWavHeader } from './fake-openai.js';

// ESPEAK_PATH (as the service reads it) lets CI point at a non-default install.
const espeakPath = process.env['ESPEAK_PATH'] || 'espeak-ng';
const probe = spawnSync(espeakPath, ['--version'], { encoding: 'utf8' });
const hasEspeak = probe.status === 0;
const onCi = process.env['CI'] === 'true';

describe('espeak-ng availability', () => {
  // On CI a missing engine is a failure, so a broken CI image cannot pass silently.
  it.runIf(onCi)('espeak-ng is installed (CI=true)', () => {
    expect(
      hasEspeak,
      `espeak-ng is not installed (tried "${espeakPath}"): the media tests need it. Install the Debian package: apt-get install -y espeak-ng (.ci/run does this), or set ESPEAK_PATH.`,
    ).toBe(true);
  });
});

describe.skipIf(!hasEspeak)('POST /v1/tts with the real espeak-ng', () => {
  let app: App;
  let auth: { authorization: string };
  const work = mkdtempSync(join(tmpdir(), 'qrail-espeak-'));

  beforeAll(async () => {
    app = await buildTestApp({ TTS_ENGINE: 'espeak', TTS_MAX_CHARS: '200', ESPEAK_PATH: espeakPath });
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('capabilities: tts ready on espeak', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/media/capabilities', headers: auth });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.tts).toMatchObject({ ready: true, engine: 'espeak', reasons: [] });
  });

  it('returns a valid RIFF/WAVE file whose header gives a duration above zero', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello from the quantum rail.' } });
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d).toMatchObject({ mime_type: 'audio/wav', engine: 'espeak', voice: 'en-us', channels: 1, bits_per_sample: 16 });
    const wav = Buffer.from(d.audio_base64, 'base64');
    const h = readWavHeader(wav);
    expect(h.riff).toBe('RIFF');
    expect(h.wave).toBe('WAVE');
    expect(h.fmt?.format).toBe(1); // PCM
    expect(h.fmt?.sampleRate).toBe(d.sample_rate);
    // espeak-ng --stdout writes placeholder sizes; the service repairs them to the real ones.
    expect(h.riffSize).toBe(wav.length - 8);
    expect(h.dataSize).toBe(wav.length - h.dataAt);
    expect(h.durationMs).toBeGreaterThan(0);
    expect(d.duration_ms).toBeCloseTo(h.durationMs, 1);
    // Non-silent: a speaking engine produces samples that are not all zero.
    let peak = 0;
    for (let i = h.dataAt; i + 1 < wav.length; i += 2) peak = Math.max(peak, Math.abs(wav.readInt16LE(i)));
    expect(peak).toBeGreaterThan(1000);
  });

  it('longer text and slower speech give longer audio', async () => {
    const say = async (text: string, speed: number) => {
      const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text, speed } });
      expect(r.statusCode).toBe(200);
      return r.json().data.duration_ms as number;
    };
    const short = await say('One qubit.', 1);
    const long = await say('One qubit, two qubits, three qubits, four qubits, entangled together.', 1);
    const slow = await say('One qubit, two qubits, three qubits, four qubits, entangled together.', 0.5);
    expect(long).toBeGreaterThan(short);
    expect(slow).toBeGreaterThan(long);
  });

  it('raw bytes with Accept: audio/wav', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: { ...auth, accept: 'audio/wav' }, payload: { text: 'Raw audio.', voice: 'en-gb' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('audio/wav');
    expect(r.headers['x-tts-voice']).toBe('en-gb');
    const h = readWavHeader(r.rawPayload);
    expect(h.riff + h.wave).toBe('RIFFWAVE');
    expect(h.durationMs).toBeGreaterThan(0);
    expect(Number(r.headers['x-audio-duration-ms'])).toBe(Math.round(h.durationMs));
  });

  it('lists voices from espeak-ng --voices; unknown voices are a 400 at /voice', async () => {
    const v = await app.inject({ method: 'GET', url: '/v1/tts/voices', headers: auth });
    expect(v.statusCode).toBe(200);
    const ids = v.json().data.voices.map((x: { id: string }) => x.id);
    expect(ids).toEqual(expect.arrayContaining(['en-us', 'en-gb', 'de', 'fr-fr']));
    expect(v.json().data.default_voice).toBe('en-us');
    const bad = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'hi', voice: 'xx-nowhere' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([expect.objectContaining({ path: '/voice', code: 'UNKNOWN_VOICE' })]);
  });

  it('text is data, never a command line: shell syntax and option-like text are just spoken', async () => {
    const marker = join(work, 'pwned');
    const text = `-v xx --stdout; touch ${marker} && echo $(touch ${marker}) \`touch ${marker}\` | cat`;
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text } });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.voice).toBe('en-us');
    expect(existsSync(marker)).toBe(false);
    const injectVoice = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'hi', voice: 'en;touch' } });
    expect(injectVoice.statusCode).toBe(400);
    expect(injectVoice.json().error.details[0].path).toBe('/voice');
  });

  it('over-long text → 400 at /text', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'word '.repeat(41) } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details).toEqual([expect.objectContaining({ path: '/text', code: 'TOO_LONG' })]);
  });
});

describe('espeak engine failures (a stand-in executable)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qrail-fake-espeak-'));
  // Answers --version and --voices like espeak-ng; then hangs or fails depending on the text.
  const script = join(dir, 'espeak-ng');
  writeFileSync(
    script,
    `#!/usr/bin/env node
const a = process.argv.slice(2);
if (a.includes('--version')) { console.log('eSpeak NG text-to-speech: 9.99-fake  Data at: /nowhere'); process.exit(0); }
if (a.includes('--voices')) { console.log('Pty Language       Age/Gender VoiceName          File                 Other Languages'); console.log(' 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)'); process.exit(0); }
let text = '';
process.stdin.on('data', (c) => { text += c; });
process.stdin.on('end', () => {
  if (text.includes('hang')) setInterval(() => {}, 1000);
  else if (text.includes('crash')) { console.error('Error: something broke'); process.exit(3); }
  else process.exit(0); // no audio at all
});
`,
  );
  chmodSync(script, 0o755);
  let app: App;
  let auth: { authorization: string };

  beforeAll(async () => {
    app = await buildTestApp({ TTS_ENGINE: 'espeak', ESPEAK_PATH: script, TTS_TIMEOUT_MS: '3000' });
    auth = (await signUp(app)).auth;
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a process that never finishes is killed → 504 MEDIA_TIMEOUT', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'please hang' } });
    expect(r.statusCode).toBe(504);
    expect(r.json().error).toMatchObject({ code: 'MEDIA_TIMEOUT', details: { service: 'tts', engine: 'espeak', timeout_ms: 3000 } });
  });

  it('a non-zero exit → 500 TTS_ENGINE_FAILED with its first stderr line', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'crash now' } });
    expect(r.statusCode).toBe(500);
    expect(r.json().error.code).toBe('TTS_ENGINE_FAILED');
    expect(r.json().error.message).toContain('something broke');
  });

  it('no audio → 500 TTS_ENGINE_FAILED (invalid_audio)', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'silence' } });
    expect(r.statusCode).toBe(500);
    expect(r.json().error.details.reason).toBe('invalid_audio');
  });
});

describe('espeak-ng missing', () => {
  it('ESPEAK_PATH that does not exist → not ready with the reason; POST /v1/tts → 503 FEATURE_UNAVAILABLE', async () => {
    const app = await buildTestApp({ ESPEAK_PATH: '/nonexistent/espeak-ng' });
    try {
      const { auth } = await signUp(app);
      const cap = await app.inject({ method: 'GET', url: '/v1/media/capabilities', headers: auth });
      const tts = cap.json().data.tts;
      expect(tts.ready).toBe(false);
      expect(tts.engine).toBe('espeak');
      expect(tts.reasons.join(' ')).toContain('espeak-ng was not found at ESPEAK_PATH=/nonexistent/espeak-ng');
      expect(tts.reasons.join(' ')).toContain('TTS_BASE_URL');
      const r = await app.inject({ method: 'POST', url: '/v1/tts', headers: auth, payload: { text: 'Hello' } });
      expect(r.statusCode).toBe(503);
      expect(r.json().error.code).toBe('FEATURE_UNAVAILABLE');
      expect(r.json().error.message).toContain('apt-get install espeak-ng');
    } finally {
      await app.close();
    }
  });
});
