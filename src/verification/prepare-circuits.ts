import { gate, type Circuit, type GateOp } from '../circuits/ir.js';
import { gateSpec } from '../circuits/gates.js';

/**
 * Reduces two circuits to the unitary parts the methods compare, or decides early.
 * Barriers are ignored; resets before anything touched the qubit are no-ops (the qubit
 * is still |0⟩); trailing measurements are stripped once both circuits are shown to
 * measure the same qubits into the same clbits. Anything else non-unitary (a gate or reset
 * after a measurement, a reset after a gate) is out of scope: the answer is 'unknown'.
 */
export interface PreparedOk {
  readonly kind: 'ok';
  /** Qubits the remaining gates act on (the `active` ones, renumbered 0..numQubits-1). */
  readonly numQubits: number;
  readonly a: readonly GateOp[];
  readonly b: readonly GateOp[];
  readonly measured: number;
  readonly originalQubits: number;
  /** active[k] is the original index of renumbered qubit k. */
  readonly active: readonly number[];
  readonly trimmedPrefix: number;
  readonly trimmedSuffix: number;
}
export type Prepared = PreparedOk | { readonly kind: 'decided'; readonly equivalent: false | 'unknown'; readonly reason: string };

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
      case 'conditioned':
        // a gate that runs on some shots only: the circuit is no unitary to compare
        return `${label}: gate ${op.gate.name} at op ${i} is conditioned on measured bits (a dynamic circuit)`;
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
  for (const [label, gates] of [
    ['first', sa.gates],
    ['second', sb.gates],
  ] as const) {
    for (let i = 0; i < gates.length; i++) {
      const problem = gateProblem(gates[i]!, a.numQubits);
      if (problem) return { kind: 'decided', equivalent: 'unknown', reason: `${label} circuit, gate ${i}: ${problem}` };
    }
  }
  return trimCommon(sa.gates, sb.gates, a.numQubits, sa.measures.size);
}

const sameGate = (x: GateOp, y: GateOp): boolean =>
  x.name === y.name && x.qubits.length === y.qubits.length && x.qubits.every((q, i) => q === y.qubits[i]) && x.params.length === y.params.length && x.params.every((p, i) => p === y.params[i]);

/**
 * Removes a common prefix S and suffix P (identical gates): with A = P·X·S and B = P·Y·S,
 * B†A = S†·(Y†X)·S, which is a multiple of I exactly when Y†X is. Then keeps only the
 * qubits X and Y act on: Y†X is (W ⊗ I), a multiple of I exactly when W is.
 */
function trimCommon(a: readonly GateOp[], b: readonly GateOp[], n: number, measured: number): PreparedOk {
  let pre = 0;
  while (pre < a.length && pre < b.length && sameGate(a[pre]!, b[pre]!)) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && sameGate(a[a.length - 1 - suf]!, b[b.length - 1 - suf]!)) suf++;
  const ra = a.slice(pre, a.length - suf);
  const rb = b.slice(pre, b.length - suf);
  const used = new Set<number>();
  for (const g of [...ra, ...rb]) for (const q of g.qubits) used.add(q);
  const active = [...used].sort((x, y) => x - y);
  const index = new Map(active.map((q, k) => [q, k]));
  const remap = (g: GateOp): GateOp =>
    gate(
      g.name,
      g.qubits.map((q) => index.get(q)!),
      g.params,
    );
  return {
    kind: 'ok',
    numQubits: active.length,
    a: ra.map(remap),
    b: rb.map(remap),
    measured,
    originalQubits: n,
    active,
    trimmedPrefix: pre,
    trimmedSuffix: suf,
  };
}

/** A basis state of the original register, qubit 0 rightmost; `bit(k)` gives active qubit k, the rest are 0. */
export function basisLabel(p: PreparedOk, bit: (k: number) => boolean): string {
  const bits = new Array<string>(p.originalQubits).fill('0');
  p.active.forEach((q, k) => {
    if (bit(k)) bits[p.originalQubits - 1 - q] = '1';
  });
  return `|${bits.join('')}⟩`;
}

/** What trimming did, for `checked`. */
export function trimNote(p: PreparedOk): string {
  const parts: string[] = [];
  if (p.trimmedPrefix + p.trimmedSuffix > 0) parts.push(`identical first ${p.trimmedPrefix} and last ${p.trimmedSuffix} gate(s) factored out (B†A = S†(Y†X)S)`);
  if (p.numQubits < p.originalQubits) parts.push(`the rest acts on ${p.numQubits} of ${p.originalQubits} qubits (others: identity)`);
  if (p.measured > 0) parts.push(`${p.measured} identical terminal measurement(s) stripped`);
  return parts.length === 0 ? '' : `; ${parts.join('; ')}`;
}

/** Why a gate cannot be checked (not in the catalogue, wrong arity or parameters, bad qubits); undefined when fine. */
export function gateProblem(g: GateOp, numQubits: number): string | undefined {
  const spec = gateSpec(g.name);
  if (!spec) return `unknown gate ${g.name}`;
  if (g.qubits.length !== spec.arity) return `gate ${g.name} takes ${spec.arity} qubit(s), got ${g.qubits.length}`;
  if (g.params.length !== spec.params) return `gate ${g.name} takes ${spec.params} parameter(s), got ${g.params.length}`;
  if (!g.params.every(Number.isFinite)) return `gate ${g.name} has a non-finite parameter`;
  return gateShapeProblem(g, numQubits);
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
