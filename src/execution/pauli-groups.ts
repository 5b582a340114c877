/**
 * Expectation values on hardware, estimated from shots (docs/decisions/execution-hardware-results.md):
 * the observable's Pauli terms are grouped into qubit-wise commuting groups (greedy, in the given
 * order), each group is measured by one circuit (the user's circuit, its measurements replaced by
 * basis rotations — X: H; Y: S† then H — and a measurement of every qubit the group acts on),
 * and ⟨P⟩ of each term is the mean parity of its qubits' measured bits. Pure: no I/O.
 *
 * Pauli strings follow src/simulation/observables.ts: the RIGHTMOST character acts on qubit 0.
 */
import { circuit, gate, measure, type Circuit, type Operation } from '../circuits/ir.js';
import type { Expectation, PauliTerm } from '../simulation/index.js';

/** One measurement setting: a basis per qubit (I: not measured) and the terms it estimates. */
export interface MeasurementGroup {
  /** One character per qubit, rightmost = qubit 0: I (not measured), X, Y or Z. */
  readonly basis: string;
  /** Indices of the observable's terms measured by this group, in order. */
  readonly terms: readonly number[];
}

export interface Grouping {
  readonly groups: readonly MeasurementGroup[];
  /** Terms that are the identity: they contribute their coeff exactly, with no circuit. */
  readonly identity: readonly number[];
}

const isIdentity = (p: string): boolean => /^I*$/.test(p);

/** Whether `pauli` fits a group's basis: on every qubit one of them is I, or they agree. */
function fits(basis: string, pauli: string): boolean {
  for (let i = 0; i < pauli.length; i++) {
    const a = basis[i]!;
    const b = pauli[i]!;
    if (a !== 'I' && b !== 'I' && a !== b) return false;
  }
  return true;
}

function merge(basis: string, pauli: string): string {
  let out = '';
  for (let i = 0; i < pauli.length; i++) out += pauli[i] === 'I' ? basis[i]! : pauli[i]!;
  return out;
}

/**
 * Greedy qubit-wise commuting grouping: each term joins the first group it fits (every
 * qubit I in one of them or the same letter), else opens a new one. Not minimal (that is graph
 * colouring), but deterministic and what clients expect (Qiskit's greedy grouping is the same rule).
 */
export function groupQubitWise(terms: readonly PauliTerm[]): Grouping {
  const groups: { basis: string; terms: number[] }[] = [];
  const identity: number[] = [];
  terms.forEach((t, k) => {
    if (isIdentity(t.pauli)) {
      identity.push(k);
      return;
    }
    const g = groups.find((x) => fits(x.basis, t.pauli));
    if (g === undefined) groups.push({ basis: t.pauli, terms: [k] });
    else {
      g.basis = merge(g.basis, t.pauli);
      g.terms.push(k);
    }
  });
  return { groups, identity };
}

/**
 * Why the circuit cannot be measured in another basis, or null: its measurements must be
 * terminal (nothing touches a qubit after it was measured) and it has no reset or conditioned
 * gate, since the group circuit replaces the measurements by its own.
 */
export function basisChangeProblem(c: Circuit): string | null {
  const measured = new Set<number>();
  for (const op of c.ops) {
    if (op.kind === 'reset' || op.kind === 'conditioned') return `the circuit has a ${op.kind === 'reset' ? 'reset' : 'conditioned gate'}`;
    if (op.kind === 'measure') measured.add(op.qubit);
    else if (op.kind === 'gate' && op.qubits.some((q) => measured.has(q))) return 'the circuit has a mid-circuit measurement';
  }
  return null;
}

/**
 * The circuit that measures one group: the user's gates (measurements dropped), then per qubit X: h; Y: sdg, h; then qubit q measured into clbit q for every
 * qubit the basis acts on. Call basisChangeProblem first.
 */
export function basisCircuit(c: Circuit, basis: string): Circuit {
  const n = c.numQubits;
  const ops: Operation[] = c.ops.filter((op) => op.kind !== 'measure');
  const measured: number[] = [];
  for (let q = 0; q < n; q++) {
    const b = basis[n - 1 - q];
    if (b === 'X') ops.push(gate('h', [q]));
    if (b === 'Y') ops.push(gate('sdg', [q]), gate('h', [q]));
    if (b !== undefined && b !== 'I') measured.push(q);
  }
  for (const q of measured) ops.push(measure(q, q));
  // Clbits are renumbered (clbit q = qubit q): the user's registers and gate calls do not apply.
  return circuit(n, n, ops, c.metadata, { quantumRegisters: c.quantumRegisters });
}

/** Bit of a clbit string (clbit 0 rightmost). */
const bitAt = (key: string, clbit: number): number => (key[key.length - 1 - clbit] === '1' ? 1 : 0);

/** ⟨term⟩ sign of one outcome: (−1)^(parity of the bits of the qubits the term acts on). */
function sign(key: string, pauli: string): number {
  const n = pauli.length;
  let s = 1;
  for (let q = 0; q < n; q++) if (pauli[n - 1 - q] !== 'I' && bitAt(key, q) === 1) s = -s;
  return s;
}

export interface GroupEstimate {
  readonly basis: string;
  readonly terms: readonly number[];
  readonly shots: number;
  /** Σ coeff·⟨P⟩ over the group's terms. */
  readonly value: number;
  readonly stderr: number;
}

export type EstimatedExpectation = Expectation & { readonly groups: readonly GroupEstimate[] };

/**
 * ⟨H⟩ from each group's counts (clbit q = qubit q, as basisCircuit measures). Per group, each
 * shot's h = Σ_{k in group} coeff_k·sign_k; the group's estimate is the mean of h and its
 * variance the sample variance of h over the shots ÷ shots — so the covariances of the
 * terms measured together are included. Groups are independent runs: the variances add.
 * Identity terms add their coeff exactly.
 */
export function estimateFromGroups(terms: readonly PauliTerm[], grouping: Grouping, counts: readonly Readonly<Record<string, number>>[]): EstimatedExpectation {
  const termValues = terms.map(() => 0);
  for (const k of grouping.identity) termValues[k] = terms[k]!.coeff;
  let variance = 0;
  const groups: GroupEstimate[] = grouping.groups.map((g, gi) => {
    const cs = counts[gi] ?? {};
    let shots = 0;
    let sum = 0;
    let sumSq = 0;
    const sums = g.terms.map(() => 0);
    for (const [key, c] of Object.entries(cs)) {
      let h = 0;
      g.terms.forEach((k, j) => {
        const v = terms[k]!.coeff * sign(key, terms[k]!.pauli);
        sums[j]! += c * v;
        h += v;
      });
      shots += c;
      sum += c * h;
      sumSq += c * h * h;
    }
    const mean = shots === 0 ? 0 : sum / shots;
    const sampleVar = shots > 1 ? Math.max(0, (sumSq - shots * mean * mean) / (shots - 1)) : 0;
    const v = shots === 0 ? 0 : sampleVar / shots;
    variance += v;
    g.terms.forEach((k, j) => {
      termValues[k] = shots === 0 ? 0 : sums[j]! / shots;
    });
    return { basis: g.basis, terms: g.terms, shots, value: mean, stderr: Math.sqrt(v) };
  });
  return { value: termValues.reduce((a, b) => a + b, 0), terms: termValues, kind: 'estimated', stderr: Math.sqrt(variance), groups };
}
