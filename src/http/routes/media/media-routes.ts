import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { errors, okResponse } from '../../envelope-schemas.js';
import { Obj } from '../../schema-helpers.js';
import { wantsRawWav } from './accept.js';

const Reasons = Type.Array(Type.String(), { description: 'Empty when ready; otherwise what an operator must configure' });

const Capabilities = Obj({
  chat: Obj({
    ready: Type.Boolean(),
    reasons: Reasons,
    model: Type.Union([Type.String(), Type.Null()]),
    limits: Obj({ max_messages: Type.Integer(), max_message_chars: Type.Integer(), max_total_chars: Type.Integer(), max_tokens: Type.Integer() }),
  }),
  tts: Obj({
    ready: Type.Boolean(),
    reasons: Reasons,
    engine: Type.Union([Type.Literal('espeak'), Type.Literal('openai'), Type.Null()], { description: 'The engine that serves (or would serve) speech' }),
    formats: Type.Array(Type.String()),
    limits: Obj({ max_chars: Type.Integer(), min_speed: Type.Number(), max_speed: Type.Number() }),
  }),
});

const Usage = Obj({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() });

const ChatReply = Obj({
  reply: Obj({ role: Type.Literal('assistant'), content: Type.String() }),
  finish_reason: Type.Union([Type.String(), Type.Null()]),
  model: Type.String(),
  usage: Type.Union([Usage, Type.Null()], { description: 'Token usage as the upstream reported it; null if it did not' }),
});

const SpeechJson = Obj({
  audio_base64: Type.String({ description: 'WAV file, base64' }),
  mime_type: Type.Literal('audio/wav'),
  engine: Type.Union([Type.Literal('espeak'), Type.Literal('openai')]),
  voice: Type.String(),
  bytes: Type.Integer(),
  duration_ms: Type.Number(),
  sample_rate: Type.Integer(),
  channels: Type.Integer(),
  bits_per_sample: Type.Integer(),
});

const VoiceView = Obj({
  id: Type.String(),
  name: Type.String(),
  language: Type.Union([Type.String(), Type.Null()]),
  gender: Type.Union([Type.String(), Type.Null()]),
});

// 422 upstream refused the request; 502 upstream failed; 504 it timed out (503 not configured or busy is the edge's).
const mediaErrors = errors(422, 502, 504);

/** Chat and text-to-speech (spec §4.2 Media), available by deployment configuration. */
export default async function mediaRoutes(app: App): Promise<void> {
  const media = app.services.media;
  const s = media.settings;
  const rateLimit = { bucket: 'media', perMinute: s.ratePerMinute };

  const ChatBody = Type.Object(
    {
      messages: Type.Array(
        Type.Object(
          {
            role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
            content: Type.String({ maxLength: s.chat.maxMessageChars }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: s.chat.maxMessages, description: `At most ${s.chat.maxMessages} messages and ${s.chat.maxTotalChars} characters in all` },
      ),
      max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: s.chat.maxTokens })),
      temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    },
    { additionalProperties: false },
  );

  const TtsBody = Type.Object(
    {
      text: Type.String({ minLength: 1, maxLength: s.tts.maxChars }),
      voice: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._+-]*$', description: 'A voice id from GET /v1/tts/voices; the deployment default otherwise' })),
      speed: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2, description: 'Multiplier of the normal speaking rate' })),
    },
    { additionalProperties: false },
  );

  app.get(
    '/v1/media/capabilities',
    {
      onRequest: app.requireSession,
      schema: {
        tags: ['media'],
        operationId: 'getMediaCapabilities',
        summary: 'Whether chat and text-to-speech are available here, and if not what to configure',
        response: { 200: okResponse(Capabilities, 'Chat and speech readiness with their limits') },
      },
    },
    async () => {
      const r = await media.readiness();
      return {
        chat: {
          ...r.chat,
          reasons: [...r.chat.reasons],
          limits: { max_messages: s.chat.maxMessages, max_message_chars: s.chat.maxMessageChars, max_total_chars: s.chat.maxTotalChars, max_tokens: s.chat.maxTokens },
        },
        tts: { ...r.tts, reasons: [...r.tts.reasons], formats: ['audio/wav'], limits: { max_chars: s.tts.maxChars, min_speed: 0.5, max_speed: 2 } },
      };
    },
  );

  app.post(
    '/v1/chat',
    {
      onRequest: app.requireSession,
      config: { rateLimit },
      schema: {
        tags: ['media'],
        operationId: 'createChatReply',
        summary: 'Send a conversation to the configured chat model; returns the reply and token usage',
        body: ChatBody,
        response: { 200: okResponse(ChatReply, 'The model’s reply'), ...mediaErrors },
      },
    },
    async (req) => {
      const b = req.body;
      const out = await media.chat({
        messages: b.messages,
        ...(b.max_tokens === undefined ? {} : { maxTokens: b.max_tokens }),
        ...(b.temperature === undefined ? {} : { temperature: b.temperature }),
      });
      const u = out.usage;
      return {
        reply: out.reply,
        finish_reason: out.finishReason,
        model: out.model,
        usage: u === null ? null : { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens },
      };
    },
  );

  app.post(
    '/v1/tts',
    {
      onRequest: app.requireSession,
      config: { rateLimit },
      schema: {
        tags: ['media'],
        operationId: 'synthesizeSpeech',
        summary: 'Speak text; WAV as base64 in the envelope, or raw audio/wav bytes when Accept: audio/wav',
        body: TtsBody,
        response: {
          200: {
            description: 'WAV audio: base64 inside the envelope (application/json), or the file itself when Accept prefers audio/wav',
            content: {
              'application/json': { schema: okResponse(SpeechJson) },
              'audio/wav': { schema: { type: 'string', contentMediaType: 'audio/wav' } },
            },
          },
          ...mediaErrors,
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const out = await media.speak({ text: b.text, ...(b.voice === undefined ? {} : { voice: b.voice }), ...(b.speed === undefined ? {} : { speed: b.speed }) });
      if (wantsRawWav(req.headers.accept)) {
        return reply
          .type('audio/wav')
          .header('vary', 'accept')
          .header('cache-control', 'no-store')
          .header('x-tts-engine', out.engine)
          .header('x-tts-voice', out.voice)
          .header('x-audio-duration-ms', String(Math.round(out.wav.durationMs)))
          .send(Buffer.from(out.audio.buffer, out.audio.byteOffset, out.audio.byteLength));
      }
      reply.header('vary', 'accept');
      return {
        audio_base64: Buffer.from(out.audio.buffer, out.audio.byteOffset, out.audio.byteLength).toString('base64'),
        mime_type: out.mimeType,
        engine: out.engine,
        voice: out.voice,
        bytes: out.audio.byteLength,
        duration_ms: Math.round(out.wav.durationMs * 100) / 100,
        sample_rate: out.wav.sampleRate,
        channels: out.wav.channels,
        bits_per_sample: out.wav.bitsPerSample,
      };
    },
  );

  app.get(
    '/v1/tts/voices',
    {
      onRequest: app.requireSession,
      schema: {
        tags: ['media'],
        operationId: 'listVoices',
        summary: 'The voices of the speech engine in use',
        response: {
          200: okResponse(Obj({ engine: Type.Union([Type.Literal('espeak'), Type.Literal('openai')]), default_voice: Type.String(), voices: Type.Array(VoiceView) }), 'The voices'),
          ...mediaErrors,
        },
      },
    },
    async () => {
      const v = await media.voices();
      return { engine: v.engine, default_voice: v.defaultVoice, voices: v.voices.map((x) => ({ ...x })) };
    },
  );
}
