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
