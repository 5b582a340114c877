import { resolveTtsEngine, type MediaSettings } from './media-settings.js';
import type { EngineProbe } from './ports.js';

export interface FeatureReadiness {
  readonly ready: boolean;
  /** Empty when ready; otherwise each thing an operator must do, in words. */
  readonly reasons: readonly string[];
}

export interface MediaReadiness {
  readonly chat: FeatureReadiness & { readonly model: string | null };
  readonly tts: FeatureReadiness & { readonly engine: 'espeak' | 'openai' | null };
}

const ESPEAK_INSTALL = 'install espeak-ng (Debian/Ubuntu: apt-get install espeak-ng) or set ESPEAK_PATH to its executable';
const TTS_OPENAI_VARS = 'TTS_BASE_URL, TTS_API_KEY and TTS_MODEL';

function missing(pairs: ReadonlyArray<readonly [string, string | undefined]>): string[] {
  return pairs.filter(([, v]) => v === undefined).map(([name]) => name);
}

/**
 * Whether chat and text-to-speech can serve on this deployment, and if not, why.
 * Pure: configuration plus what the adapter found out about the local engine.
 */
export function mediaReadiness(settings: MediaSettings, probes: { readonly espeak: EngineProbe }): MediaReadiness {
  const c = settings.chat;
  const chatMissing = missing([
    ['CHAT_BASE_URL', c.baseUrl],
    ['CHAT_API_KEY', c.apiKey],
    ['CHAT_MODEL', c.model],
  ]);
  const chatReasons =
    chatMissing.length === 0
      ? []
      : [
          chatMissing.length === 3
            ? 'Chat is not configured: set CHAT_BASE_URL (an OpenAI-compatible API base such as https://api.openai.com/v1), CHAT_API_KEY and CHAT_MODEL.'
            : `Chat is partly configured: also set ${chatMissing.join(' and ')}.`,
        ];

  const t = settings.tts;
  const engine = resolveTtsEngine(t);
  const ttsReasons: string[] = [];
  if (engine === 'off') {
    ttsReasons.push(`Text-to-speech is switched off (TTS_ENGINE=off); set TTS_ENGINE=espeak and ${ESPEAK_INSTALL}, or TTS_ENGINE=openai with ${TTS_OPENAI_VARS}.`);
  } else if (engine === 'openai') {
    const m = missing([
      ['TTS_BASE_URL', t.baseUrl],
      ['TTS_API_KEY', t.apiKey],
      ['TTS_MODEL', t.model],
    ]);
    if (m.length > 0) ttsReasons.push(`Text-to-speech through an OpenAI-compatible endpoint needs ${m.join(' and ')}.`);
  } else if (!probes.espeak.available) {
    const why = probes.espeak.detail ?? 'espeak-ng is not available';
    ttsReasons.push(
      t.engine === 'auto' ? `No speech engine: ${why}; ${ESPEAK_INSTALL}, or configure an OpenAI-compatible endpoint with ${TTS_OPENAI_VARS}.` : `TTS_ENGINE=espeak but ${why}; ${ESPEAK_INSTALL}.`,
    );
  }
  return {
    chat: { ready: chatReasons.length === 0, reasons: chatReasons, model: chatReasons.length === 0 ? (c.model ?? null) : null },
    tts: { ready: ttsReasons.length === 0, engine: engine === 'off' ? null : engine, reasons: ttsReasons },
  };
}
