/** A symmetric matrix of qubit pairs, coloured by a value in [0, max]: coupling scores or measured mutual information. */
export interface PairValue {
  readonly qubits: readonly [number, number] | readonly number[];
  readonly value: number;
}

export function HeatMap({ n, pairs, max, label, unit }: { n: number; pairs: readonly PairValue[]; max: number; label: string; unit: string }) {
  const size = n <= 12 ? 28 : n <= 24 ? 18 : 10;
  const grid = new Map<string, number>();
  for (const p of pairs) {
    const [a, b] = p.qubits;
    if (a === undefined || b === undefined) continue;
    grid.set(`${a},${b}`, p.value);
    grid.set(`${b},${a}`, p.value);
  }
  const top = 24;
  const left = 28;
  const width = left + n * size + 4;
  const height = top + n * size + 4;
  const shade = (v: number) => {
    const t = max <= 0 ? 0 : Math.min(1, Math.max(0, v / max));
    // Light to dark blue: readable in print and for the common colour-vision deficiencies.
    const l = 96 - t * 60;
    return `hsl(212 70% ${l}%)`;
  };
  return (
    <figure class="heat-map">
      <div class="diagram-frame" tabIndex={0} role="region" aria-label={label}>
        <svg width={width} height={height} role="img" aria-label={`${label}, ${pairs.length} pairs`}>
          {Array.from({ length: n }, (_, i) => (
            <g key={`l${i}`}>
              <text x={left + i * size + size / 2} y={top - 6} text-anchor="middle" class="axis-label">
                {n <= 24 ? i : i % 5 === 0 ? i : ''}
              </text>
              <text x={left - 4} y={top + i * size + size / 2 + 4} text-anchor="end" class="axis-label">
                {n <= 24 ? i : i % 5 === 0 ? i : ''}
              </text>
            </g>
          ))}
          {Array.from({ length: n * n }, (_, k) => {
            const i = Math.floor(k / n);
            const j = k % n;
            const v = grid.get(`${i},${j}`);
            return (
              <rect key={k} x={left + j * size} y={top + i * size} width={size - 1} height={size - 1} fill={i === j ? '#eee' : v === undefined ? '#fafafa' : shade(v)}>
                {v !== undefined && <title>{`q${i}–q${j}: ${v.toFixed(4)} ${unit}`}</title>}
              </rect>
            );
          })}
        </svg>
      </div>
      <figcaption>
        {label}: darker is stronger (0 to {max.toFixed(3)} {unit}). Hover a cell for its value.
      </figcaption>
    </figure>
  );
}
