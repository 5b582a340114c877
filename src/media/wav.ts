/**
 * RIFF/WAVE reading and header repair. Engines that stream (espeak-ng --stdout, some
 * speech APIs) cannot know the length up front and write placeholder sizes
 * (0x7ffff000, 0xffffffff); the audio we return always carries the true sizes, so
 * players and `durationMs` agree with the bytes.
 */

export interface WavInfo {
  /** 1 = integer PCM, 3 = IEEE float, 0xfffe = extensible. */
  readonly audioFormat: number;
  readonly channels: number;
  readonly sampleRate: number;
  readonly byteRate: number;
  readonly blockAlign: number;
  readonly bitsPerSample: number;
  readonly dataOffset: number;
  readonly dataBytes: number;
  readonly durationMs: number;
}

export class WavError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavError';
  }
}

function ascii(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at] ?? 0, b[at + 1] ?? 0, b[at + 2] ?? 0, b[at + 3] ?? 0);
}

interface Located {
  readonly info: WavInfo;
  /** Offset of the data chunk's size field, to repair it. */
  readonly dataSizeAt: number;
  readonly declaredData: number;
}

function locate(bytes: Uint8Array): Located {
  if (bytes.length < 12 || ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') throw new WavError('not a RIFF/WAVE file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes' | 'durationMs'> | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new WavError('fmt chunk is truncated');
      fmt = {
        audioFormat: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        byteRate: view.getUint32(body + 8, true),
        blockAlign: view.getUint16(body + 12, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (fmt === undefined) throw new WavError('data chunk comes before the fmt chunk');
      if (fmt.channels === 0 || fmt.sampleRate === 0 || fmt.blockAlign === 0) throw new WavError('fmt chunk has zero channels, rate or block size');
      const available = bytes.length - body;
      // A streamed header over-states the size; the bytes present are the truth.
      const actual = Math.min(size, available);
      const dataBytes = actual - (actual % fmt.blockAlign);
      const byteRate = fmt.sampleRate * fmt.blockAlign;
      return {
        info: { ...fmt, byteRate, dataOffset: body, dataBytes, durationMs: (dataBytes / byteRate) * 1000 },
        dataSizeAt: at + 4,
        declaredData: size,
      };
    }
    // Chunks are word aligned; an odd size is followed by one pad byte.
    at = body + size + (size % 2);
  }
  throw new WavError('no data chunk');
}

export function parseWav(bytes: Uint8Array): WavInfo {
  return locate(bytes).info;
}

/**
 * Returns WAV bytes whose RIFF and data sizes match the content (a copy when a fix was
 * needed; trailing bytes beyond the data chunk are dropped when the data size was a placeholder).
 */
export function normalizeWav(bytes: Uint8Array): { readonly bytes: Uint8Array; readonly info: WavInfo } {
  const { info, dataSizeAt, declaredData } = locate(bytes);
  const end = info.dataOffset + info.dataBytes;
  const riffDeclared = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (declaredData === info.dataBytes && riffDeclared === bytes.length - 8) return { bytes, info };
  const out = bytes.slice(0, declaredData === info.dataBytes ? bytes.length : end);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(dataSizeAt, info.dataBytes, true);
  view.setUint32(4, out.length - 8, true);
  return { bytes: out, info };
}

/** A PCM WAV with a canonical 44-byte header (tests and fakes). */
export function encodeWav(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  const dataBytes = samples.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  const v = new DataView(out.buffer);
  const put = (at: number, s: string) => {
    for (let i = 0; i < 4; i++) out[at + i] = s.charCodeAt(i);
  };
  put(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  put(8, 'WAVE');
  put(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true);
  v.setUint16(32, channels * 2, true);
  v.setUint16(34, 16, true);
  put(36, 'data');
  v.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) v.setInt16(44 + i * 2, samples[i] ?? 0, true);
  return out;
}
