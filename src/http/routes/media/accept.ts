/** The media types that ask `POST /v1/tts` for raw WAV bytes instead of the JSON envelope. */
const AUDIO = new Set(['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave', 'audio/*']);
const JSON_TYPES = new Set(['application/json', 'application/*']);

/**
 * True when the Accept header prefers WAV: an audio range is named with q > 0 and at
 * least the weight of any JSON range. `*\/*` alone (or no header) means JSON.
 */
export function wantsRawWav(accept: string | undefined): boolean {
  if (accept === undefined || accept === '') return false;
  let audioQ = 0;
  let jsonQ = 0;
  for (const part of accept.split(',')) {
    const [typeRaw, ...params] = part.split(';');
    const type = (typeRaw ?? '').trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m !== null) q = Math.min(1, Math.max(0, Number(m[1])));
    }
    if (AUDIO.has(type)) audioQ = Math.max(audioQ, q);
    else if (JSON_TYPES.has(type)) jsonQ = Math.max(jsonQ, q);
  }
  return audioQ > 0 && audioQ >= jsonQ;
}
