import compress from '@fastify/compress';
import type { App } from '../app-types.js';

/**
 * Smaller than this, an answer goes as it is: compressing a few hundred bytes of JSON costs more
 * CPU than the bytes it saves. The OpenAPI document (~700 KB) and the reference page's bundle
 * (~1.7 MB) shrink by ten times or more.
 */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Response compression, brotli or gzip as the client's Accept-Encoding prefers (with `Vary:
 * Accept-Encoding`), on every route. Registered after the idempotency plugin: each of them appends
 * an onSend hook to the routes it sees, so idempotency stores the plain answer before it is
 * compressed, and a replay is compressed for whoever asks again. Event streams are never
 * compressed (the plugin's own rule; none is served today). Request bodies are not decompressed:
 * a Content-Encoding on a request would let a small body expand past BODY_LIMIT_BYTES.
 */
export async function registerCompression(app: App): Promise<void> {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
  });
}
