/**
 * Seeded pseudo-random numbers for sampling and trajectories: xoshiro128** (32-bit
 * operations only, fast in JS) seeded through splitmix32, so the same seed gives the
 * same counts on every platform. Not cryptographic.
 */
export class SeededRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // Both halves of a safe-integer seed matter.
    let s = (seed >>> 0) ^ Math.imul(Math.floor(seed / 4294967296) >>> 0, 0x9e3779b1);
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /**
   * Binomial(n, p) by geometric skipping: O(n·min(p,1-p) + 1) draws, exact for any n.
   * Error and jump probabilities are small, so this is cheap where it matters.
   */
  binomial(n: number, p: number): number {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (p > 0.5) return n - this.binomial(n, 1 - p);
    const logq = Math.log1p(-p);
    let count = 0;
    let pos = 0;
    for (;;) {
      const u = this.next();
      // 1 - u is in (0, 1], so the log is finite.
      pos += Math.floor(Math.log(1 - u) / logq) + 1;
      if (pos > n) return count;
      count++;
    }
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A fresh seed when the caller gave none (reported back so the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 4294967296);
}
