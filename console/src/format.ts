/** Amounts arrive as USD strings with six decimals ("12.345000"): shown as money, never parsed to floats for sums. */
export function usd(s: string | null | undefined): string {
  if (s === null || s === undefined) return '—';
  const m = /^(-?)(\d+)\.(\d{6})$/.exec(s);
  if (m === null) return s;
  const [, sign, whole, frac] = m;
  const cents = frac!.slice(0, 2);
  const rest = frac!.slice(2).replace(/0+$/, '');
  return `${sign}$${Number(whole).toLocaleString('en-US')}.${cents}${rest}`;
}

export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Milliseconds between two instants, as "1.2 s" / "340 ms". */
export function duration(from: string | null | undefined, to: string | null | undefined): string {
  if (from == null || to == null) return '—';
  const ms = new Date(to).getTime() - new Date(from).getTime();
  if (!Number.isFinite(ms)) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.max(0, Math.round(ms))} ms`;
}

/**
 * A time given in microseconds (T1/T2 arrive so) in the unit that reads best: µs below a
 * millisecond, ms below a second, s above; three significant digits. The unit is chosen after
 * rounding, so 999.7 µs reads "1 ms", not "1000 µs".
 */
export function microseconds(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '—';
  const rounded = Number(us.toPrecision(3));
  const [value, unit] = Math.abs(rounded) >= 1e6 ? [us / 1e6, 's'] : Math.abs(rounded) >= 1e3 ? [us / 1e3, 'ms'] : [us, 'µs'];
  const shown = Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(3));
  return `${shown} ${unit}`;
}
