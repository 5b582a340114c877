import type { SpeechEngine, SpeechRequest, Voice } from '../ports.js';
import { postJson } from './openai-http.js';

export interface OpenAiSpeechOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly voices: readonly string[];
  readonly timeoutMs: number;
  readonly maxAudioBytes: number;
  readonly fetch?: typeof fetch;
}

/** `POST {base}/audio/speech` with `response_format: "wav"`; the API has no voice list, so the configured one is used. */
export class OpenAiSpeechEngine implements SpeechEngine {
  readonly name = 'openai' as const;
  readonly defaultVoice: string;
  private readonly voiceList: readonly Voice[];

  constructor(private readonly opts: OpenAiSpeechOptions) {
    this.defaultVoice = opts.voices[0] ?? 'alloy';
    this.voiceList = opts.voices.map((id) => ({ id, name: id, language: null, gender: null }));
  }

  async voices(): Promise<readonly Voice[]> {
    return this.voiceList;
  }

  async synthesize(req: SpeechRequest): Promise<Uint8Array> {
    const ans = await postJson(
      `${this.opts.baseUrl}/audio/speech`,
      {
        model: this.opts.model,
        input: req.text,
        voice: req.voice,
        response_format: 'wav',
        speed: req.speed,
      },
      {
        apiKey: this.opts.apiKey,
        timeoutMs: this.opts.timeoutMs,
        maxResponseBytes: this.opts.maxAudioBytes,
        ...(this.opts.fetch === undefined ? {} : { fetch: this.opts.fetch }),
      },
    );
    // The WAV check (and header repair) happens in the media service for every engine.
    return ans.body;
  }
}
