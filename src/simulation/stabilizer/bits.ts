/** Bit helpers for the packed stabilizer structures (32-bit words: JavaScript's bitwise operators are 32-bit). */

/** Number of set bits of a 32-bit word. */
export function popcount(v: number): number {
  let x = v - ((v >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Words needed for `bits` bits. */
export const wordsFor = (bits: number): number => Math.max(1, (bits + 31) >>> 5);
