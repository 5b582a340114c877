import type { Circuit, GateOp } from '../circuits/ir.js';

/**
 * Reduces two circuits to the unitary parts the methods compare, or decides early.
 * Barriers are ignored; resets before anything touched the qubit are no-ops (the qubit
 * is still |0⟩); trailing measurements are stripped once both circuits are shown to
 * measure the same qubits into the same clbits. Anything else non-unitary (a gate or reset
 * after a measurement, a reset after a gate) is out of scope: the answer is 'unknown'.
 */
export type Prepared =
  | { readonly kind: 'ok'; readonly numQubits: number; readonly a: readonly GateOp[]; readonly b: readonly GateOp[]; readonly measured: number }
  | { readonly kind: 'decided'; readonly equivalent: false | 'unknown'; readonly reason: string };

interface Stripped {
  readonly gates: readonly GateOp[];
  /** clbit → qubit, the last measurement written to each clbit. */
  readonly measures: ReadonlyMap<number, number>;
}

function strip(c: Circuit, label: string): Stripped | string {
  const touched = new Set<number>();
  const measured = new Set<number>();
  const gates: GateOp[] = [];
  const measures = new Map<number, number>();
  for (let i = 0; i < c.ops.length; i++) {
    const op = c.ops[i]!;
    switch (op.kind) {
      case 'barrier':
        break;
      case 'reset':
        if (measured.has(op.qubit) || touched.has(op.qubit)) return `${label}: reset of qubit ${op.qubit} at op ${i} after it was used (mid-circuit reset)`;
        break;
      case 'measure':
        measured.add(op.qubit);
        measures.set(op.clbit, op.qubit);
        break;
      case 'gate':
        for (const q of op.qubits) {
          if (measured.has(q)) return `${label}: gate ${op.name} at op ${i} acts on qubit ${q} after it was measured (mid-circuit measurement)`;
          touched.add(q);
        }
        gates.push(op);
        break;
    }
  }
  return { gates, measures };
}

function describeMap(m: ReadonlyMap<number, number>): string {
  const entries = [...m.entries()].sort((x, y) => x[0] - y[0]);
  return entries.length === 0 ? 'none' : entries.map(([c, q]) => `q${q}→c${c}`).join(', ');
}

export function prepareCircuits(a: Circuit, b: Circuit): Prepared {
  if (a.numQubits !== b.numQubits) {
    return { kind: 'decided', equivalent: false, reason: `different qubit counts (${a.numQubits} vs ${b.numQubits})` };
  }
  if (a.numClbits !== b.numClbits) {
    return { kind: 'decided', equivalent: false, reason: `different clbit counts (${a.numClbits} vs ${b.numClbits})` };
  }
  const sa = strip(a, 'first circuit');
  if (typeof sa === 'string') return { kind: 'decided', equivalent: 'unknown', reason: sa };
  const sb = strip(b, 'second circuit');
  if (typeof sb === 'string') return { kind: 'decided', equivalent: 'unknown', reason: sb };
  const da = describeMap(sa.measures);
  const db = describeMap(sb.measures);
  if (da !== db) {
    return { kind: 'decided', equivalent: false, reason: `terminal measurements differ (${da} vs ${db})` };
  }
  return { kind: 'ok', numQubits: a.numQubits, a: sa.gates, b: sb.gates, measured: sa.measures.size };
}

/** Structural problems that make a gate unusable (bad qubit indices); undefined when fine. */
export function gateShapeProblem(g: GateOp, numQubits: number): string | undefined {
  const seen = new Set<number>();
  for (const q of g.qubits) {
    if (!Number.isInteger(q) || q < 0 || q >= numQubits) return `gate ${g.name} acts on qubit ${q}, outside 0..${numQubits - 1}`;
    if (seen.has(q)) return `gate ${g.name} repeats qubit ${q}`;
    seen.add(q);
  }
  return undefined;
}
