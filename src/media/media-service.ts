import { fail, type ErrorDetail } from '../errors/app-error.js';
import { HTTP_ERRORS } from '../errors/http-error-codes.js';
import { MEDIA_ERRORS } from './error-codes.js';
import { resolveTtsEngine, type MediaSettings } from './media-settings.js';
import type { ChatMessage, ChatUpstream, EngineProbe, SpeechEngine, TokenUsage, Voice } from './ports.js';
import { mediaReadiness, type MediaReadiness } from './readiness.js';
import { Semaphore } from './semaphore.js';
import { upstreamError } from './upstream-errors.js';
import { normalizeWav, WavError, type WavInfo } from './wav.js';

export interface ChatInput {
  readonly messages: readonly ChatMessage[];
  readonly maxTokens?: number;
  readonly temperature?: number;
}

export interface ChatOutput {
  readonly reply: ChatMessage & { readonly role: 'assistant' };
  readonly finishReason: string | null;
  readonly model: string;
  readonly usage: TokenUsage | null;
}

export interface SpeechInput {
  readonly text: string;
  readonly voice?: string;
  readonly speed?: number;
}

export interface SpeechOutput {
  readonly audio: Uint8Array;
  readonly mimeType: 'audio/wav';
  readonly engine: 'espeak' | 'openai';
  readonly voice: string;
  readonly wav: WavInfo;
}

export interface MediaDeps {
  /** Present only when chat is fully configured. */
  readonly chat?: ChatUpstream;
  readonly espeak?: SpeechEngine;
  /** Present only when the OpenAI-compatible speech endpoint is fully configured. */
  readonly openaiSpeech?: SpeechEngine;
  /** Finds out whether the local engine can run; called lazily and cached. */
  readonly probeEspeak: () => Promise<EngineProbe>;
  readonly now?: () => number;
}

/** A negative probe is retried after this long, so installing espeak-ng needs no restart. */
const NEGATIVE_PROBE_TTL_MS = 30_000;
// Control characters other than tab and newlines are never speech; they become spaces.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

function invalid(message: string, details: ErrorDetail[]) {
  return fail(HTTP_ERRORS.VALIDATION_FAILED, message, details);
}

/** Counts code points, as JSON Schema `maxLength` does. */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

export class MediaService {
  private probe: { at: number; value: Promise<EngineProbe> } | undefined;
  private readonly slots: Semaphore;
  private readonly now: () => number;

  constructor(
    readonly settings: MediaSettings,
    private readonly deps: MediaDeps,
  ) {
    this.slots = new Semaphore(settings.tts.maxConcurrency, settings.tts.maxQueue);
    this.now = deps.now ?? Date.now;
  }

  private espeakProbe(): Promise<EngineProbe> {
    const t = this.now();
    if (this.probe === undefined) {
      this.probe = { at: t, value: this.deps.probeEspeak() };
    } else if (t - this.probe.at > NEGATIVE_PROBE_TTL_MS) {
      const prev = this.probe;
      this.probe = {
        at: t,
        value: prev.value.then(
          (p) => (p.available ? p : this.deps.probeEspeak()),
          () => this.deps.probeEspeak(),
        ),
      };
    }
    return this.probe.value;
  }

  /** Chat and tts readiness with reasons; the local engine is probed only when it is the one in use. */
  async readiness(): Promise<MediaReadiness> {
    const needsProbe = resolveTtsEngine(this.settings.tts) === 'espeak';
    const espeak: EngineProbe = needsProbe
      ? await this.espeakProbe().catch((e: unknown) => ({ available: false, version: null, detail: String(e) }))
      : { available: false, version: null, detail: 'not probed' };
    return mediaReadiness(this.settings, { espeak });
  }

  private unavailable(feature: 'chat' | 'tts', reasons: readonly string[]) {
    return fail(HTTP_ERRORS.FEATURE_UNAVAILABLE, reasons.join(' ') || `${feature} is not available on this deployment.`, { feature, reasons });
  }

  /** Checks the limits the body schema cannot express (the sum over messages). */
  checkChat(input: ChatInput): void {
    const c = this.settings.chat;
    const details: ErrorDetail[] = [];
    if (input.messages.length === 0) details.push({ path: '/messages', code: 'TOO_FEW_ITEMS', message: 'must contain at least one message' });
    if (input.messages.length > c.maxMessages) details.push({ path: '/messages', code: 'TOO_MANY_ITEMS', message: `must contain at most ${c.maxMessages} messages` });
    let total = 0;
    input.messages.forEach((m, i) => {
      const n = charLength(m.content);
      total += n;
      if (n > c.maxMessageChars) details.push({ path: `/messages/${i}/content`, code: 'TOO_LONG', message: `must be at most ${c.maxMessageChars} characters, has ${n}` });
    });
    if (total > c.maxTotalChars) details.push({ path: '/messages', code: 'TOO_LONG', message: `the messages together must be at most ${c.maxTotalChars} characters, have ${total}` });
    if (input.messages.length > 0 && !input.messages.some((m) => m.role === 'user')) {
      details.push({ path: '/messages', code: 'NO_USER_MESSAGE', message: 'must contain at least one message with role "user"' });
    }
    if (input.maxTokens !== undefined && (input.maxTokens < 1 || input.maxTokens > c.maxTokens)) {
      details.push({ path: '/max_tokens', code: 'TOO_LARGE', message: `must be between 1 and ${c.maxTokens}` });
    }
    if (details.length > 0) throw invalid("The conversation exceeds this deployment's limits.", details);
  }

  async chat(input: ChatInput): Promise<ChatOutput> {
    const r = await this.readiness();
    const c = this.settings.chat;
    if (!r.chat.ready || this.deps.chat === undefined || c.model === undefined) throw this.unavailable('chat', r.chat.reasons);
    this.checkChat(input);
    try {
      const out = await this.deps.chat.complete({
        model: c.model,
        messages: input.messages.map((m) => ({ role: m.role, content: m.content })),
        ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
        ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
      });
      return { reply: { role: 'assistant', content: out.content }, finishReason: out.finishReason, model: out.model, usage: out.usage };
    } catch (e) {
      throw upstreamError('chat', e, { timeoutMs: c.timeoutMs });
    }
  }

  /** The engine that serves speech now, or FEATURE_UNAVAILABLE with what to configure. */
  async speechEngine(): Promise<SpeechEngine> {
    const r = await this.readiness();
    const engine = r.tts.engine === 'openai' ? this.deps.openaiSpeech : r.tts.engine === 'espeak' ? this.deps.espeak : undefined;
    if (!r.tts.ready || engine === undefined) throw this.unavailable('tts', r.tts.reasons);
    return engine;
  }

  async voices(): Promise<{ engine: 'espeak' | 'openai'; defaultVoice: string; voices: readonly Voice[] }> {
    const engine = await this.speechEngine();
    try {
      return { engine: engine.name, defaultVoice: this.defaultVoice(engine), voices: await engine.voices() };
    } catch (e) {
      throw upstreamError('tts', e, { timeoutMs: this.settings.tts.timeoutMs, engine: engine.name });
    }
  }

  private defaultVoice(engine: SpeechEngine): string {
    return this.settings.tts.voice ?? engine.defaultVoice;
  }

  /** Normalizes and checks the text: control characters become spaces; length and emptiness are 400s with paths. */
  prepareText(text: string): string {
    const clean = text.replace(CONTROL, ' ');
    const n = charLength(clean);
    const max = this.settings.tts.maxChars;
    if (n > max) throw invalid('The text is too long.', [{ path: '/text', code: 'TOO_LONG', message: `must be at most ${max} characters, has ${n}` }]);
    if (clean.trim() === '') throw invalid('The text is empty.', [{ path: '/text', code: 'EMPTY', message: 'must contain something to speak' }]);
    return clean;
  }

  async speak(input: SpeechInput): Promise<SpeechOutput> {
    const engine = await this.speechEngine();
    const text = this.prepareText(input.text);
    const speed = input.speed ?? 1;
    if (!(speed >= 0.5 && speed <= 2)) throw invalid('The speed is out of range.', [{ path: '/speed', code: 'OUT_OF_RANGE', message: 'must be between 0.5 and 2' }]);
    const t = this.settings.tts;
    const ctx = { timeoutMs: t.timeoutMs, engine: engine.name };
    let voices: readonly Voice[];
    try {
      voices = await engine.voices();
    } catch (e) {
      throw upstreamError('tts', e, ctx);
    }
    const wanted = input.voice ?? this.defaultVoice(engine);
    const voice = voices.find((v) => v.id.toLowerCase() === wanted.toLowerCase());
    if (voice === undefined) {
      // Suggest the default and same-language voices first, then the rest of the list.
      const prefix = wanted.slice(0, 2).toLowerCase();
      const ids = [this.defaultVoice(engine), ...voices.filter((v) => v.id.startsWith(prefix)).map((v) => v.id), ...voices.map((v) => v.id)];
      const sample = [...new Set(ids)].slice(0, 8).join(', ');
      throw invalid('Unknown voice.', [
        { path: '/voice', code: 'UNKNOWN_VOICE', message: `"${wanted}" is not a voice of the ${engine.name} engine (for example ${sample}); GET /v1/tts/voices lists them all` },
      ]);
    }

    const acquired = this.slots.tryAcquire();
    if (acquired === undefined) {
      throw fail(
        MEDIA_ERRORS.MEDIA_BUSY,
        'Too many speech requests are in progress on this instance; retry shortly.',
        { in_flight: this.slots.inFlight, queued: this.slots.queued },
        { 'retry-after': '1' },
      );
    }
    const release = await acquired;
    let raw: Uint8Array;
    try {
      raw = await engine.synthesize({ text, voice: voice.id, speed });
    } catch (e) {
      throw upstreamError('tts', e, ctx);
    } finally {
      release();
    }
    let wav: { bytes: Uint8Array; info: WavInfo };
    try {
      wav = normalizeWav(raw);
    } catch (e) {
      const why = e instanceof WavError ? e.message : 'unreadable audio';
      throw engine.name === 'espeak'
        ? fail(MEDIA_ERRORS.TTS_ENGINE_FAILED, `The local speech engine (espeak-ng) produced invalid audio: ${why}.`, { service: 'tts', engine: 'espeak', reason: 'invalid_audio' })
        : fail(MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, `The speech service did not answer with WAV audio: ${why}.`, { service: 'tts', engine: 'openai', reason: 'not_wav' });
    }
    if (wav.info.dataBytes === 0) {
      throw fail(engine.name === 'espeak' ? MEDIA_ERRORS.TTS_ENGINE_FAILED : MEDIA_ERRORS.MEDIA_UPSTREAM_ERROR, 'The speech engine produced no audio for this text.', {
        service: 'tts',
        engine: engine.name,
        reason: 'no_audio',
      });
    }
    return { audio: wav.bytes, mimeType: 'audio/wav', engine: engine.name, voice: voice.id, wav: wav.info };
  }
}
