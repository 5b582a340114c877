/**
 * "Did you mean …?" for a mistyped command or flag: the optimal-string-alignment distance
 * (Levenshtein with adjacent transpositions, Damerau), since "jbos" and "--stauts" are the usual
 * typos and plain Levenshtein counts a swap as two edits.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word` when it is near enough to be a typo: at most one edit for short
 * words, up to three for long ones (a third of the word). Ties go to the first candidate.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.min(3, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const dist = editDistance(w, c.toLowerCase());
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  return best;
}

/** `; did you mean "x"?` to append to a message, or nothing. */
export const suggestion = (word: string, candidates: Iterable<string>): string => {
  const c = closest(word, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
};
