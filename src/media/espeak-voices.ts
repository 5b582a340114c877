import type { Voice } from './ports.js';

/**
 * Parses `espeak-ng --voices`:
 *   Pty Language       Age/Gender VoiceName          File                 Other Languages
 *    2  en-us           --/M      English_(America)  gmw/en-US            (en 3)
 * The language column is the id `-v` accepts; names use underscores for spaces.
 */
export function parseEspeakVoices(text: string): Voice[] {
  const out: Voice[] = [];
  const seen = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/.exec(line);
    if (m === null) continue;
    const [, , language, ageGender, name] = m as unknown as [string, string, string, string, string];
    if (language === 'variant' || seen.has(language)) continue;
    seen.add(language);
    const g = ageGender.split('/')[1];
    out.push({ id: language, name: name.replace(/_/g, ' '), language, gender: g === 'M' ? 'male' : g === 'F' ? 'female' : null });
  }
  return out;
}

/** espeak-ng's rate in words per minute for a speed multiplier (175 wpm is its normal rate; it accepts 80–450). */
export function espeakWordsPerMinute(speed: number): number {
  return Math.min(450, Math.max(80, Math.round(175 * speed)));
}
