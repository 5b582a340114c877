import { pass, type CallOptions, type RequestFn } from '../call.js';
import type { JsonBody, Operation } from '../types.js';

/** Chat and text-to-speech, when the deployment has them (`capabilities` says; else 503 FEATURE_UNAVAILABLE). */
export function mediaArea(request: RequestFn) {
  return {
    async capabilities(options?: CallOptions) {
      return (await request('get', '/v1/media/capabilities', pass(options))).data;
    },
    async chat(body: JsonBody<Operation<'/v1/chat', 'post'>>, options?: CallOptions) {
      return (await request('post', '/v1/chat', { body, ...pass(options) })).data;
    },
    /** Speech as base64 WAV in `audio_base64`. */
    async tts(body: JsonBody<Operation<'/v1/tts', 'post'>>, options?: CallOptions) {
      return (await request('post', '/v1/tts', { body, ...pass(options) })).data;
    },
    async voices(options?: CallOptions) {
      return (await request('get', '/v1/tts/voices', pass(options))).data;
    },
  };
}
