import { describe, expect, it } from 'vitest';
import { microseconds } from '../../console/src/format.ts';

/** The console's figures in units a person reads: T1/T2 arrive in µs and span µs to seconds. */
describe('console formatting: microseconds scaled to µs, ms or s', () => {
  it('keeps small figures in µs and scales larger ones, three significant digits', () => {
    expect(microseconds(0)).toBe('0 µs');
    expect(microseconds(85.34)).toBe('85.3 µs');
    expect(microseconds(312.6)).toBe('313 µs');
    expect(microseconds(999.7)).toBe('1 ms');
    expect(microseconds(1500)).toBe('1.5 ms');
    expect(microseconds(125_000)).toBe('125 ms');
    expect(microseconds(10_320_182)).toBe('10.3 s');
    expect(microseconds(250_000_000)).toBe('250 s');
  });

  it('shows an absent or non-finite figure as a dash', () => {
    expect(microseconds(null)).toBe('—');
    expect(microseconds(Number.NaN)).toBe('—');
  });
});
