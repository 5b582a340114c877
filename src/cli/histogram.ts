/**
 * Measurement counts as a text histogram, most frequent first (ties in bitstring order):
 *
 *   00  ████████████████████████████████████████  501  50.1%
 *   11  ███████████████████████████████████████▉  499  49.9%
 *
 * Bars scale to the largest count; eighth blocks give the fractional end. Bitstrings are
 * printed exactly as the service keys them; the caller states the bit order above.
 */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function histogram(counts: Readonly<Record<string, number>>, opts: { readonly width?: number; readonly maxRows?: number } = {}): string {
  const width = opts.width ?? 40;
  const maxRows = opts.maxRows ?? 32;
  const rows = Object.entries(counts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  if (rows.length === 0) return '  (no counts)\n';
  const total = rows.reduce((s, [, n]) => s + n, 0);
  const top = rows[0]?.[1] ?? 1;
  const keyWidth = Math.max(...rows.map(([k]) => k.length));
  const countWidth = String(top).length;
  const lines = rows.slice(0, maxRows).map(([key, n]) => {
    const eighths = top === 0 ? 0 : Math.round((n / top) * width * 8);
    const bar = `${'█'.repeat(Math.floor(eighths / 8))}${EIGHTHS[eighths % 8] ?? ''}`;
    const pct = total === 0 ? 0 : (n / total) * 100;
    return `  ${key.padEnd(keyWidth)}  ${bar.padEnd(width)}  ${String(n).padStart(countWidth)}  ${pct.toFixed(1).padStart(5)}%`;
  });
  if (rows.length > maxRows) {
    const rest = rows.slice(maxRows).reduce((s, [, n]) => s + n, 0);
    lines.push(`  … ${rows.length - maxRows} more outcomes (${rest} shots); --json has them all`);
  }
  return `${lines.join('\n')}\n`;
}
