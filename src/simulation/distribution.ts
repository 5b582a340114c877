/** Counts drawn from an exact distribution over clbit strings (the density-matrix and MPS methods). */
import type { SeededRng } from './rng.js';

/** Outcomes below this probability are left out of exact `probabilities` (as the state-vector engine does). */
export const DISTRIBUTION_EPS = 1e-15;

/**
 * A multinomial sample of `shots` from `probs` (keys in sorted order): sequential binomials, so the
 * cost is O(outcomes + shots·min(p, 1 − p)) and the sample is exact for the given probabilities.
 */
export function sampleCounts(probs: Readonly<Record<string, number>>, shots: number, rng: SeededRng): Record<string, number> {
  const out: Record<string, number> = {};
  const keys = Object.keys(probs).sort();
  let mass = 0;
  for (const k of keys) mass += Math.max(0, probs[k]!);
  let left = shots;
  for (let i = 0; i < keys.length && left > 0; i++) {
    const p = Math.max(0, probs[keys[i]!]!);
    const c = i === keys.length - 1 || mass <= 0 ? left : rng.binomial(left, Math.min(1, p / mass));
    mass -= p;
    left -= c;
    if (c > 0) out[keys[i]!] = c;
  }
  return out;
}

/** Readout errors applied exactly to a distribution: clbit c (rightmost is clbit 0) flips with ro[c][bit]. */
export function withReadout(probs: Record<string, number>, readout: readonly (readonly [number, number] | null)[]): Record<string, number> {
  let cur = probs;
  readout.forEach((ro, c) => {
    if (ro === null || (ro[0] === 0 && ro[1] === 0)) return;
    const next: Record<string, number> = {};
    for (const [k, p] of Object.entries(cur)) {
      const pos = k.length - 1 - c;
      const b = k[pos] === '1' ? 1 : 0;
      const f = ro[b];
      const flipped = k.slice(0, pos) + (b === 1 ? '0' : '1') + k.slice(pos + 1);
      next[k] = (next[k] ?? 0) + p * (1 - f);
      if (f > 0) next[flipped] = (next[flipped] ?? 0) + p * f;
    }
    cur = next;
  });
  return cur;
}

/** Sorted keys, outcomes below DISTRIBUTION_EPS dropped. */
export function tidy(probs: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(probs).sort()) if (probs[k]! > DISTRIBUTION_EPS) out[k] = probs[k]!;
  return out;
}
