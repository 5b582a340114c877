import { MediaService } from '../media-service.js';
import { parseMediaSettings } from '../media-settings.js';
import { EspeakEngine, espeakChildEnv, probeEspeak } from './espeak-engine.js';
import { OpenAiChatUpstream } from './openai-chat-upstream.js';
import { OpenAiSpeechEngine } from './openai-speech-engine.js';

/**
 * Wires the media service to its adapters from the configuration's env.
 * Throws `ConfigError` for malformed media variables.
 */
export function createMediaService(env: Readonly<Record<string, string | undefined>>): MediaService {
  const s = parseMediaSettings(env);
  const c = s.chat;
  const t = s.tts;
  const childEnv = espeakChildEnv(env);
  const chat = c.baseUrl !== undefined && c.apiKey !== undefined && c.model !== undefined ? new OpenAiChatUpstream({ baseUrl: c.baseUrl, apiKey: c.apiKey, timeoutMs: c.timeoutMs }) : undefined;
  const openaiSpeech =
    t.baseUrl !== undefined && t.apiKey !== undefined && t.model !== undefined
      ? new OpenAiSpeechEngine({ baseUrl: t.baseUrl, apiKey: t.apiKey, model: t.model, voices: t.openaiVoices, timeoutMs: t.timeoutMs, maxAudioBytes: t.maxAudioBytes })
      : undefined;
  return new MediaService(s, {
    ...(chat === undefined ? {} : { chat }),
    ...(openaiSpeech === undefined ? {} : { openaiSpeech }),
    espeak: new EspeakEngine({ path: t.espeakPath, timeoutMs: t.timeoutMs, maxAudioBytes: t.maxAudioBytes, childEnv }),
    probeEspeak: () => probeEspeak(t.espeakPath, childEnv),
  });
}
