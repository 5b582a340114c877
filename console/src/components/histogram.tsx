/**
 * Counts as bars, one per outcome, tallest first is not imposed: outcomes are sorted as bit
 * strings so neighbouring states sit together. The bit order is stated on the chart itself.
 */
export function Histogram({ counts, shots, bitOrder, probabilities }: { counts: Record<string, number>; shots?: number; bitOrder?: string; probabilities?: Record<string, number> | undefined }) {
  const entries = Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const total = shots ?? entries.reduce((s, [, n]) => s + n, 0);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  const shown = entries.slice(0, 64);
  const barW = 28;
  const gap = 8;
  const h = 160;
  const width = Math.max(240, shown.length * (barW + gap) + 48);
  return (
    <figure class="histogram">
      <div class="diagram-frame" tabIndex={0} role="region" aria-label="Counts histogram">
        <svg width={width} height={h + 56} role="img" aria-label={`Histogram of ${entries.length} outcomes over ${total} shots`}>
          <line x1={40} x2={width - 4} y1={h + 8} y2={h + 8} class="axis" />
          <text x={4} y={16} class="axis-label">
            {max}
          </text>
          <text x={4} y={h + 8} class="axis-label">
            0
          </text>
          {shown.map(([bits, n], i) => {
            const bh = (n / max) * (h - 8);
            const x = 44 + i * (barW + gap);
            return (
              <g key={bits}>
                <title>{`${bits}: ${n} of ${total} (${((100 * n) / Math.max(1, total)).toFixed(1)} %)${probabilities?.[bits] !== undefined ? `, exact probability ${probabilities[bits].toFixed(4)}` : ''}`}</title>
                <rect x={x} y={h + 8 - bh} width={barW} height={bh} class="bar" />
                <text x={x + barW / 2} y={h + 8 - bh - 4} text-anchor="middle" class="bar-value">
                  {n}
                </text>
                <text x={x + barW / 2} y={h + 24} text-anchor="middle" class="bar-label">
                  {bits}
                </text>
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption>
        {total} shots, {entries.length} distinct outcomes{entries.length > shown.length ? ` (first ${shown.length} drawn)` : ''}. Bit order:{' '}
        {bitOrder ?? 'the leftmost character is the highest classical bit'}.
      </figcaption>
      <table class="compact">
        <caption class="sr-only">Counts per outcome</caption>
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col">Count</th>
            {probabilities !== undefined && <th scope="col">Exact probability</th>}
          </tr>
        </thead>
        <tbody>
          {entries.map(([bits, n]) => (
            <tr key={bits}>
              <td>
                <code>{bits}</code>
              </td>
              <td>{n}</td>
              {probabilities !== undefined && <td>{probabilities[bits] === undefined ? '—' : probabilities[bits].toFixed(6)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
