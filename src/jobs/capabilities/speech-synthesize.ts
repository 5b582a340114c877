import type { MediaService } from '../../media/media-service.js';
import type { Capability } from '../capability.js';

interface Prepared {
  readonly text: string;
  readonly voice: string | undefined;
  readonly speed: number | undefined;
}

const BASE = 500n;
const PER_CHAR = 10n;

/**
 * `speech.synthesize`: text-to-speech (same MediaService as POST /v1/tts), the WAV returned
 * base64-encoded in the result. Without a ready speech engine it is listed `available: false`
 * with the reason and a submission gets 503 CAPABILITY_UNAVAILABLE, nothing reserved; an engine
 * lost after a job was queued fails it with the media code (FEATURE_UNAVAILABLE), uncharged.
 */
export function speechSynthesize(media: MediaService): Capability<Prepared> {
  const maxChars = media.settings.tts.maxChars;
  return {
    id: 'speech.synthesize',
    product: 'product-two',
    title: 'Speech synthesis',
    description: `Speaks a text (up to ${maxChars} characters) with the deployment's speech engine (local espeak-ng or an OpenAI-compatible endpoint); the result carries a WAV file in base64.`,
    pricing: { formula: '0.000500 + 0.000010 × characters', parameters: { base: '0.000500', per_character: '0.000010' } },
    requestSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: {
        text: { type: 'string', minLength: 1, maxLength: maxChars },
        voice: { type: 'string', minLength: 1, maxLength: 64, description: 'A voice id of GET /v1/tts/voices (default: the engine default)' },
        speed: { type: 'number', minimum: 0.5, maximum: 2 },
      },
    },
    example: { text: 'Hello from qrail.' },
    // Synthesis has no effect outside the process's answer: safe to run again.
    onInterrupted: 'rerun',
    prepare: (r) => ({ text: r['text'] as string, voice: r['voice'] as string | undefined, speed: r['speed'] as number | undefined }),
    quote: (p) => ({ priceMicros: BASE + PER_CHAR * BigInt([...p.text].length), breakdown: { base: '0.000500', characters: [...p.text].length } }),
    async availability() {
      const tts = (await media.readiness()).tts;
      return tts.ready ? { available: true } : { available: false, reason: tts.reasons.join(' ') || 'No speech engine is ready on this deployment.' };
    },
    async run(p) {
      const out = await media.speak({ text: p.text, ...(p.voice === undefined ? {} : { voice: p.voice }), ...(p.speed === undefined ? {} : { speed: p.speed }) });
      return {
        mime_type: out.mimeType,
        engine: out.engine,
        voice: out.voice,
        wav: out.wav as unknown as Record<string, unknown>,
        audio_base64: Buffer.from(out.audio).toString('base64'),
      };
    },
  };
}
