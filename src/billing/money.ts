/**
 * Money helpers. Amounts are integer micro-USD (`bigint`, 1 = 0.000001 USD); on the wire
 * they are decimal strings. Nothing here ever goes through a float.
 */
export const MICROS_PER_USD = 1_000_000n;
export const MICROS_PER_CENT = 10_000n;

/** `120000n` → `"0.120000"`; negative amounts keep their sign (`"-0.500000"`). */
export function formatMicros(micros: bigint): string {
  const neg = micros < 0n;
  const abs = neg ? -micros : micros;
  const whole = abs / MICROS_PER_USD;
  const frac = (abs % MICROS_PER_USD).toString().padStart(6, '0');
  return `${neg ? '-' : ''}${whole.toString()}.${frac}`;
}

const USD = /^(0|[1-9]\d{0,11})(?:\.(\d{1,6}))?$/;

/** `"0.12"` → `120000n`. Throws RangeError on anything but a plain non-negative decimal with ≤ 6 decimals. */
export function parseUsd(s: string): bigint {
  const m = USD.exec(s);
  if (m === null) throw new RangeError(`not a USD amount: ${JSON.stringify(s)}`);
  const whole = BigInt(m[1] as string);
  const frac = BigInt((m[2] ?? '').padEnd(6, '0'));
  return whole * MICROS_PER_USD + frac;
}

/** Micro-USD → whole cents, rounding up (a charge must cover the amount). */
export function microsToCentsCeil(micros: bigint): bigint {
  return (micros + MICROS_PER_CENT - 1n) / MICROS_PER_CENT;
}

export function centsToMicros(cents: bigint | number): bigint {
  return BigInt(cents) * MICROS_PER_CENT;
}
