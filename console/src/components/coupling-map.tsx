function circle(n: number, size: number): [number, number][] {
  return Array.from({ length: n }, (_, q) => {
    const a = (2 * Math.PI * q) / n - Math.PI / 2;
    return [size / 2 + (size / 2 - 24) * Math.cos(a), size / 2 + (size / 2 - 24) * Math.sin(a)] as [number, number];
  });
}

/**
 * Fruchterman–Reingold from the circle, a fixed number of rounds: deterministic, and enough for
 * the grids and heavy-hex lattices of real devices to unfold into their shape.
 */
function springLayout(n: number, edges: readonly (readonly number[])[], size: number): [number, number][] {
  const p = circle(n, size).map(([x, y]) => [x, y]);
  const k = Math.sqrt((size * size) / Math.max(1, n)) * 0.75;
  for (let round = 0, temp = size / 8; round < 200; round++, temp *= 0.975) {
    const d = p.map(() => [0, 0]);
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const dx = p[i]![0]! - p[j]![0]!;
        const dy = p[i]![1]! - p[j]![1]!;
        const dist = Math.max(0.01, Math.hypot(dx, dy));
        const f = (k * k) / dist;
        d[i]![0]! += (dx / dist) * f;
        d[i]![1]! += (dy / dist) * f;
        d[j]![0]! -= (dx / dist) * f;
        d[j]![1]! -= (dy / dist) * f;
      }
    for (const [a, b] of edges) {
      const dx = p[a!]![0]! - p[b!]![0]!;
      const dy = p[a!]![1]! - p[b!]![1]!;
      const dist = Math.max(0.01, Math.hypot(dx, dy));
      const f = (dist * dist) / k;
      d[a!]![0]! -= (dx / dist) * f;
      d[a!]![1]! -= (dy / dist) * f;
      d[b!]![0]! += (dx / dist) * f;
      d[b!]![1]! += (dy / dist) * f;
    }
    for (let i = 0; i < n; i++) {
      const len = Math.max(0.01, Math.hypot(d[i]![0]!, d[i]![1]!));
      const step = Math.min(len, temp);
      p[i]![0] = Math.min(size - 16, Math.max(16, p[i]![0]! + (d[i]![0]! / len) * step));
      p[i]![1] = Math.min(size - 16, Math.max(16, p[i]![1]! + (d[i]![1]! / len) * step));
    }
  }
  return p.map(([x, y]) => [x!, y!]);
}

/** A device's connectivity: all-to-all devices as a ring, coupling maps laid out by their edges (a grid comes out a grid). */
export function CouplingMap({ qubits, edges, label }: { qubits: number; edges: readonly (readonly number[])[] | undefined; label: string }) {
  const n = Math.max(1, qubits);
  const all = edges === undefined;
  const size = n <= 16 ? 260 : 360;
  const list = all ? [] : (edges ?? []).filter((e) => e.length === 2 && e[0]! < n && e[1]! < n);
  const at = all ? circle(n, size) : springLayout(n, list, size);
  const pos = (q: number): [number, number] => at[q] ?? [0, 0];
  return (
    <figure class="coupling-map">
      <svg width={size} height={size} role="img" aria-label={`${label}: ${n} qubits, ${all ? 'all-to-all' : `${list.length} couplings`}`}>
        {all && <circle cx={size / 2} cy={size / 2} r={size / 2 - 24} class="all-to-all" />}
        {list.map(([a, b], i) => {
          const [x1, y1] = pos(a!);
          const [x2, y2] = pos(b!);
          return <line key={i} x1={x1} y1={y1} x2={x2} y2={y2} class="edge" />;
        })}
        {Array.from({ length: n }, (_, q) => {
          const [x, y] = pos(q);
          return (
            <g key={q}>
              <circle cx={x} cy={y} r={n <= 16 ? 11 : 8} class="node" />
              <text x={x} y={y + 4} text-anchor="middle" class="node-label">
                {q}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{all ? 'All-to-all connectivity: every pair of qubits can interact directly.' : `${list.length} coupled pairs.`}</figcaption>
    </figure>
  );
}
