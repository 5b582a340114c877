import { ConfigError, int, optional as opt, type Env } from '../config/env-parser.js';

/** How text-to-speech is chosen: `auto` = the OpenAI-compatible endpoint when configured, else local espeak-ng. */
export type TtsEngineChoice = 'auto' | 'espeak' | 'openai' | 'off';
export type TtsEngineName = 'espeak' | 'openai';

export interface ChatSettings {
  /** Undefined when not set; readiness lists what is missing. */
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly model: string | undefined;
  readonly timeoutMs: number;
  readonly maxMessages: number;
  readonly maxMessageChars: number;
  readonly maxTotalChars: number;
  /** Upper bound for the client's `max_tokens`. */
  readonly maxTokens: number;
}

export interface TtsSettings {
  readonly engine: TtsEngineChoice;
  readonly baseUrl: string | undefined;
  readonly apiKey: string | undefined;
  readonly model: string | undefined;
  /** Voices offered by the OpenAI-compatible endpoint (it has no list call). */
  readonly openaiVoices: readonly string[];
  /** Default voice; undefined = the engine's default (`en-us` for espeak, the first listed for openai). */
  readonly voice: string | undefined;
  readonly timeoutMs: number;
  readonly maxChars: number;
  readonly maxConcurrency: number;
  /** Requests allowed to wait for a synthesis slot before MEDIA_BUSY. */
  readonly maxQueue: number;
  readonly maxAudioBytes: number;
  readonly espeakPath: string;
}

export interface MediaSettings {
  readonly chat: ChatSettings;
  readonly tts: TtsSettings;
  readonly ratePerMinute: number;
}

/** An http(s) base URL without a trailing slash; credentials in it are refused (use the *_API_KEY variable). */
function baseUrl(env: Env, name: string): string | undefined {
  const raw = opt(env, name);
  if (raw === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL such as https://api.openai.com/v1, got "${raw.replace(/:[^:@/]*@/, ':***@')}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(name, `must use http: or https:, got ${u.protocol}`);
  if (u.username !== '' || u.password !== '') throw new ConfigError(name, 'must not contain credentials; put the key in the matching *_API_KEY variable');
  if (u.search !== '' || u.hash !== '') throw new ConfigError(name, 'must not contain a query or fragment');
  return raw.replace(/\/+$/, '');
}

const ENGINES: readonly TtsEngineChoice[] = ['auto', 'espeak', 'openai', 'off'];
const DEFAULT_OPENAI_VOICES = ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'];
const VOICE_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/**
 * Reads the media variables from the configuration's `env`. Malformed values throw a
 * `ConfigError` naming the variable (the app refuses to start); values that are merely
 * missing leave the feature unready, and readiness says what to set.
 */
export function parseMediaSettings(env: Env): MediaSettings {
  const engineRaw = (opt(env, 'TTS_ENGINE') ?? 'auto').toLowerCase();
  if (!ENGINES.includes(engineRaw as TtsEngineChoice)) {
    throw new ConfigError('TTS_ENGINE', `must be one of ${ENGINES.join(', ')}, got "${engineRaw}"`);
  }
  const voicesRaw = opt(env, 'TTS_VOICES');
  const openaiVoices =
    voicesRaw === undefined
      ? DEFAULT_OPENAI_VOICES
      : voicesRaw
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== '');
  for (const v of openaiVoices) if (!VOICE_ID.test(v)) throw new ConfigError('TTS_VOICES', `has an invalid voice id "${v}" (letters, digits, . _ + -)`);
  if (openaiVoices.length === 0) throw new ConfigError('TTS_VOICES', 'must list at least one voice');
  const voice = opt(env, 'TTS_VOICE');
  if (voice !== undefined && !VOICE_ID.test(voice)) throw new ConfigError('TTS_VOICE', `is not a valid voice id: "${voice}"`);
  const espeakPath = opt(env, 'ESPEAK_PATH') ?? 'espeak-ng';
  if (/[\0\n\r]/.test(espeakPath)) throw new ConfigError('ESPEAK_PATH', 'must be a program name or path');
  const maxMessageChars = int(env, 'CHAT_MAX_MESSAGE_CHARS', 16_000, 1, 1_000_000);
  const maxTotalChars = int(env, 'CHAT_MAX_TOTAL_CHARS', 64_000, 1, 4_000_000);
  if (maxTotalChars < maxMessageChars) throw new ConfigError('CHAT_MAX_TOTAL_CHARS', 'must be at least CHAT_MAX_MESSAGE_CHARS');

  return Object.freeze({
    chat: Object.freeze({
      baseUrl: baseUrl(env, 'CHAT_BASE_URL'),
      apiKey: opt(env, 'CHAT_API_KEY'),
      model: opt(env, 'CHAT_MODEL'),
      timeoutMs: int(env, 'CHAT_TIMEOUT_MS', 30_000, 100, 600_000),
      maxMessages: int(env, 'CHAT_MAX_MESSAGES', 64, 1, 1000),
      maxMessageChars,
      maxTotalChars,
      maxTokens: int(env, 'CHAT_MAX_TOKENS', 4096, 1, 1_000_000),
    }),
    tts: Object.freeze({
      engine: engineRaw as TtsEngineChoice,
      baseUrl: baseUrl(env, 'TTS_BASE_URL'),
      apiKey: opt(env, 'TTS_API_KEY'),
      model: opt(env, 'TTS_MODEL'),
      openaiVoices: Object.freeze([...openaiVoices]),
      voice,
      timeoutMs: int(env, 'TTS_TIMEOUT_MS', 30_000, 100, 600_000),
      maxChars: int(env, 'TTS_MAX_CHARS', 1000, 1, 20_000),
      maxConcurrency: int(env, 'TTS_MAX_CONCURRENCY', 2, 1, 64),
      maxQueue: int(env, 'TTS_MAX_QUEUE', 16, 0, 10_000),
      maxAudioBytes: int(env, 'TTS_MAX_AUDIO_BYTES', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      espeakPath,
    }),
    ratePerMinute: int(env, 'MEDIA_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
  });
}

/** Which engine `auto` resolves to: the configured endpoint wins over the local engine. */
export function resolveTtsEngine(tts: TtsSettings): TtsEngineName | 'off' {
  if (tts.engine !== 'auto') return tts.engine;
  return tts.baseUrl !== undefined ? 'openai' : 'espeak';
}
