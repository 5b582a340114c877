import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void;

/**
 * A real OpenAI-compatible HTTP server on an ephemeral port. Tests swap `handler`
 * to answer success, errors, garbage or nothing at all (timeouts).
 */
export class FakeOpenAi {
  readonly requests: RecordedRequest[] = [];
  handler: Handler = (_req, res) => json(res, 500, { error: { message: 'no handler' } });
  private server: Server | undefined;
  baseUrl = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* keep text */
        }
        const rec = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(rec);
        this.handler(rec, res);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.baseUrl = `http://127.0.0.1:${port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (s === undefined) return;
    // Hanging (timeout) requests keep sockets open; drop them so close() returns.
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export function completion(content: string, usage: unknown = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }) {
  return {
    id: 'chatcmpl-test-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model-2024-01-01',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  };
}

/** A streamed-style WAV as some speech APIs send it: the sizes are placeholders (0xffffffff). */
export function streamedWav(samples: number, sampleRate = 24_000): Buffer {
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(0xffffffff, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(0xffffffff, 40);
  for (let i = 0; i < samples; i++) b.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), 44 + i * 2);
  return b;
}

/**
 * Reads a canonical WAV header the way a player would, independently of src/media/wav.ts:
 * the duration is the data chunk size over the byte rate.
 */
export function readWavHeader(b: Buffer) {
  const riff = b.toString('ascii', 0, 4);
  const wave = b.toString('ascii', 8, 12);
  let at = 12;
  let fmt: { format: number; channels: number; sampleRate: number; byteRate: number; bits: number } | undefined;
  let dataSize = -1;
  let dataAt = -1;
  while (at + 8 <= b.length) {
    const id = b.toString('ascii', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ')
      fmt = { format: b.readUInt16LE(at + 8), channels: b.readUInt16LE(at + 10), sampleRate: b.readUInt32LE(at + 12), byteRate: b.readUInt32LE(at + 16), bits: b.readUInt16LE(at + 22) };
    if (id === 'data') {
      dataSize = size;
      dataAt = at + 8;
      break;
    }
    at += 8 + size + (size % 2);
  }
  return { riff, wave, riffSize: b.readUInt32LE(4), fmt, dataSize, dataAt, durationMs: fmt === undefined || dataSize < 0 ? 0 : (dataSize / fmt.byteRate) * 1000 };
}
