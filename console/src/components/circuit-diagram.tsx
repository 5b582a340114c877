/**
 * A circuit drawn as SVG: one wire per qubit, gates packed into columns as early as their
 * qubits allow, controlled gates as a dot and a target joined by a line. Wide circuits scroll
 * horizontally inside their frame (20 qubits × 200 gates stays readable at the default scale).
 */
export interface DiagramGate {
  readonly op: string;
  readonly qubits: readonly number[];
  readonly params?: readonly unknown[];
  readonly clbits?: readonly number[];
}

export interface DiagramCircuit {
  readonly num_qubits: number;
  readonly gates: readonly DiagramGate[];
  readonly measurements?: readonly { readonly qubit: number; readonly clbit: number }[];
}

const COL = 46;
const ROW = 40;
const LEFT = 44;
const TOP = 24;
const BOX = 30;

/** Gates drawn as controls on all but their last qubit, and the symbol of the target. */
const CONTROLLED: Record<string, { controls: number; target: string }> = {
  cx: { controls: 1, target: '⊕' },
  cy: { controls: 1, target: 'Y' },
  cz: { controls: 1, target: '●' },
  ch: { controls: 1, target: 'H' },
  csx: { controls: 1, target: '√X' },
  crx: { controls: 1, target: 'RX' },
  cry: { controls: 1, target: 'RY' },
  crz: { controls: 1, target: 'RZ' },
  cp: { controls: 1, target: 'P' },
  cu1: { controls: 1, target: 'U1' },
  cu3: { controls: 1, target: 'U3' },
  cu: { controls: 1, target: 'U' },
  ccx: { controls: 2, target: '⊕' },
  ccz: { controls: 2, target: '●' },
  c3x: { controls: 3, target: '⊕' },
  c3sqrtx: { controls: 3, target: '√X' },
  c4x: { controls: 4, target: '⊕' },
  cswap: { controls: 1, target: '×' },
};

function formatParam(p: unknown): string {
  if (typeof p !== 'number') return String(p);
  const pi = p / Math.PI;
  for (const d of [1, 2, 3, 4, 6, 8, 16]) {
    const n = pi * d;
    if (Math.abs(n - Math.round(n)) < 1e-9 && Math.round(n) !== 0) {
      const k = Math.round(n);
      const num = k === 1 ? 'π' : k === -1 ? '-π' : `${k}π`;
      return d === 1 ? num : `${num}/${d}`;
    }
  }
  return Number(p.toPrecision(3)).toString();
}

interface Placed {
  readonly gate: DiagramGate;
  readonly col: number;
  readonly measure: boolean;
}

/** Column of each operation: the first column after the previous operations on the qubits it spans. */
export function layout(c: DiagramCircuit): { placed: Placed[]; columns: number } {
  const next = new Array<number>(c.num_qubits).fill(0);
  const placed: Placed[] = [];
  const ops: { gate: DiagramGate; measure: boolean }[] = [
    ...c.gates.map((g) => ({ gate: g, measure: g.op === 'measure' })),
    ...(c.measurements ?? []).map((m) => ({ gate: { op: 'measure', qubits: [m.qubit], clbits: [m.clbit] }, measure: true })),
  ];
  for (const { gate, measure } of ops) {
    const qs = gate.qubits.filter((q) => q >= 0 && q < c.num_qubits);
    if (qs.length === 0) continue;
    // A multi-qubit gate's line crosses the wires between its qubits: they are taken too.
    const lo = Math.min(...qs);
    const hi = Math.max(...qs);
    let col = 0;
    for (let q = lo; q <= hi; q++) col = Math.max(col, next[q] ?? 0);
    for (let q = lo; q <= hi; q++) next[q] = col + 1;
    placed.push({ gate, col, measure });
  }
  return { placed, columns: Math.max(1, ...next) };
}

const boxWidth = (label: string) => Math.max(BOX, label.length * 7 + 8);

/** The text a gate's box shows: its name, and its parameters when they are short. */
function boxLabel(gate: DiagramGate, measure: boolean): string {
  if (measure) return `M${gate.clbits?.[0] ?? ''}`;
  const params = (gate.params ?? []).map(formatParam);
  return gate.op.toUpperCase() + (params.length > 0 && params.join(',').length <= 8 ? `(${params.join(',')})` : '');
}

/** Left edge of every column: each as wide as its widest box, so long labels never overlap. */
function columnEdges(placed: readonly Placed[], columns: number): number[] {
  const widths = new Array<number>(columns).fill(COL);
  for (const p of placed) widths[p.col] = Math.max(widths[p.col] ?? COL, boxWidth(boxLabel(p.gate, p.measure)) + 14);
  const edges = [LEFT];
  for (const w of widths) edges.push(edges[edges.length - 1]! + w);
  return edges;
}

function GateBox({ x, y, label, title }: { x: number; y: number; label: string; title: string }) {
  const w = boxWidth(label);
  return (
    <g>
      <title>{title}</title>
      <rect x={x - w / 2} y={y - BOX / 2} width={w} height={BOX} rx={4} class="gate" />
      <text x={x} y={y + 4} text-anchor="middle" class="gate-label">
        {label}
      </text>
    </g>
  );
}

function Operation({ p, edges }: { p: Placed; edges: readonly number[] }) {
  const { gate, col } = p;
  const x = ((edges[col] ?? LEFT) + (edges[col + 1] ?? LEFT + COL)) / 2;
  const y = (q: number) => TOP + q * ROW;
  const params = (gate.params ?? []).map(formatParam);
  const title = `${gate.op}${params.length > 0 ? `(${params.join(', ')})` : ''} on q${gate.qubits.join(', q')}`;
  if (p.measure) {
    const q = gate.qubits[0] ?? 0;
    return <GateBox x={x} y={y(q)} label={boxLabel(gate, true)} title={`measure q${q} → c${gate.clbits?.[0] ?? q}`} />;
  }
  if (gate.op === 'barrier') {
    const qs = gate.qubits;
    return (
      <g>
        <title>barrier</title>
        <line x1={x} x2={x} y1={y(Math.min(...qs)) - ROW / 2 + 4} y2={y(Math.max(...qs)) + ROW / 2 - 4} class="barrier" />
      </g>
    );
  }
  const ctl = CONTROLLED[gate.op];
  if (gate.op === 'swap' || (ctl !== undefined && gate.qubits.length === ctl.controls + (gate.op === 'cswap' ? 2 : 1))) {
    const qs = gate.qubits;
    const controls = gate.op === 'swap' ? [] : qs.slice(0, ctl!.controls);
    const targets = gate.op === 'swap' || gate.op === 'cswap' ? qs.slice(controls.length) : qs.slice(-1);
    const all = [...controls, ...targets];
    const label = ctl?.target ?? '×';
    return (
      <g>
        <title>{title}</title>
        <line x1={x} x2={x} y1={y(Math.min(...all))} y2={y(Math.max(...all))} class="link" />
        {controls.map((q) => (
          <circle key={`c${q}`} cx={x} cy={y(q)} r={5} class="control" />
        ))}
        {targets.map((q) =>
          label === '×' ? (
            <text key={`t${q}`} x={x} y={y(q) + 6} text-anchor="middle" class="swap">
              ×
            </text>
          ) : label === '⊕' ? (
            <g key={`t${q}`}>
              <circle cx={x} cy={y(q)} r={10} class="target" />
              <line x1={x - 10} x2={x + 10} y1={y(q)} y2={y(q)} class="link" />
              <line x1={x} x2={x} y1={y(q) - 10} y2={y(q) + 10} class="link" />
            </g>
          ) : label === '●' ? (
            <circle key={`t${q}`} cx={x} cy={y(q)} r={5} class="control" />
          ) : (
            <GateBox key={`t${q}`} x={x} y={y(q)} label={params.length > 0 ? `${label}` : label} title={title} />
          ),
        )}
      </g>
    );
  }
  // Any other gate: one box spanning its qubits, named with its parameters.
  const qs = gate.qubits;
  const lo = Math.min(...qs);
  const hi = Math.max(...qs);
  const label = boxLabel(gate, false);
  if (lo === hi) return <GateBox x={x} y={y(lo)} label={label} title={title} />;
  const w = boxWidth(label);
  return (
    <g>
      <title>{title}</title>
      <rect x={x - w / 2} y={y(lo) - BOX / 2} width={w} height={y(hi) - y(lo) + BOX} rx={4} class="gate" />
      <text x={x} y={(y(lo) + y(hi)) / 2 + 4} text-anchor="middle" class="gate-label">
        {label}
      </text>
    </g>
  );
}

export function CircuitDiagram({ circuit, label }: { circuit: DiagramCircuit; label: string }) {
  const { placed, columns } = layout(circuit);
  const edges = columnEdges(placed, columns);
  const width = (edges[edges.length - 1] ?? LEFT) + 16;
  const height = TOP + Math.max(1, circuit.num_qubits) * ROW - ROW / 2 + 8;
  return (
    <div class="diagram-frame" tabIndex={0} role="region" aria-label={`${label}: ${circuit.num_qubits} qubits, ${placed.length} operations`}>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label} class="diagram">
        {Array.from({ length: circuit.num_qubits }, (_, q) => (
          <g key={q}>
            <text x={4} y={TOP + q * ROW + 4} class="wire-label">
              q{q}
            </text>
            <line x1={LEFT - 8} x2={width - 8} y1={TOP + q * ROW} y2={TOP + q * ROW} class="wire" />
          </g>
        ))}
        {placed.map((p, i) => (
          <Operation key={i} p={p} edges={edges} />
        ))}
      </svg>
    </div>
  );
}
