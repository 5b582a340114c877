/**
 * Circuits to IonQ and results back (API v0.4, job type `ionq.circuit.v1`).
 *
 * Out: the translated circuit as an `input` in the QIS gate set (`{gateset: "qis", qubits,
 * circuit: [...]}`); IonQ measures every qubit at the end, so measurements are not sent.
 *
 * Back: IonQ keys its results by the measured state as a decimal integer with qubit 0 the least
 * significant bit. Our counts are keyed by clbit strings with clbit 0 rightmost, each clbit
 * taking the bit of the qubit measured into it. Two sources, in order of preference:
 *   - the shot histogram (`results.histogram`, counts per state): used as is;
 *   - the probability distribution (`results.probabilities`): turned into counts by the
 *     largest-remainder method, so they sum exactly to the shots (never naive rounding).
 */
import type { Circuit } from '../../circuits/ir.js';

/** Our gate names → IonQ QIS names (single-qubit gates; cx and swap are written out below). */
const QIS_NAMES: Readonly<Record<string, string>> = {
  x: 'x',
  y: 'y',
  z: 'z',
  h: 'h',
  s: 's',
  sdg: 'si',
  t: 't',
  tdg: 'ti',
  sx: 'v',
  sxdg: 'vi',
  rx: 'rx',
  ry: 'ry',
  rz: 'rz',
};

/** The gates this adapter can send: what the remote device's translation must produce. */
export const IONQ_QIS_GATES: readonly string[] = Object.freeze([...Object.keys(QIS_NAMES), 'cx', 'swap']);

export interface IonqQisInput {
  readonly gateset: 'qis';
  readonly qubits: number;
  readonly circuit: Record<string, unknown>[];
}

export function toIonqInput(c: Circuit): IonqQisInput {
  const gates: Record<string, unknown>[] = [];
  let maxQ = 0;
  for (const op of c.ops) {
    if (op.kind === 'measure') {
      maxQ = Math.max(maxQ, op.qubit);
      continue;
    }
    // IonQ's circuit format has no classical control: dropping a condition would run its gate on every
    // shot. The service refuses dynamic circuits for IonQ before this (the device does not declare
    // them), so this is a second guard: the job fails, its hold is released.
    if (op.kind === 'conditioned') throw new Error(`operation ${c.ops.indexOf(op)} is conditioned on measured bits, and IonQ runs no dynamic circuits`);
    if (op.kind !== 'gate') continue;
    maxQ = Math.max(maxQ, ...op.qubits);
    if (op.name === 'cx') gates.push({ gate: 'cnot', control: op.qubits[0], target: op.qubits[1] });
    else if (op.name === 'swap') gates.push({ gate: 'swap', targets: [...op.qubits] });
    else {
      const name = QIS_NAMES[op.name];
      if (name === undefined) throw new Error(`gate ${op.name} has no IonQ QIS name`);
      gates.push(op.params.length > 0 ? { gate: name, target: op.qubits[0], rotation: op.params[0] } : { gate: name, target: op.qubits[0] });
    }
  }
  return { gateset: 'qis', qubits: maxQ + 1, circuit: gates };
}

/** A results body as `{state: value}`, or null when it is not one (keys decimal integers, values finite and ≥ 0). */
export function readStateMap(body: unknown): Map<bigint, number> | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const out = new Map<bigint, number>();
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (!/^\d{1,80}$/.test(k) || typeof v !== 'number' || !Number.isFinite(v) || v < 0) return null;
    out.set(BigInt(k), v);
  }
  return out;
}

/** State integer → clbit string (clbit 0 rightmost), merging states that differ only on unmeasured qubits. */
function byClbits(states: Map<bigint, number>, c: Circuit): Map<string, number> {
  const source = new Array<number>(c.numClbits).fill(-1);
  for (const op of c.ops) if (op.kind === 'measure') source[op.clbit] = op.qubit;
  const out = new Map<string, number>();
  for (const [s, v] of states) {
    let key = '';
    for (let cl = c.numClbits - 1; cl >= 0; cl--) {
      const q = source[cl]!;
      key += q < 0 ? '0' : ((s >> BigInt(q)) & 1n).toString();
    }
    out.set(key, (out.get(key) ?? 0) + v);
  }
  return out;
}

/**
 * Spreads `shots` over weighted keys by the largest-remainder (Hamilton) method: each key gets
 * the floor of its exact share, and the shots left go one each to the largest remainders (ties
 * by key, so the result is deterministic). The counts sum to `shots` exactly.
 */
export function largestRemainder(weights: Map<string, number>, shots: number): Record<string, number> {
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  if (total <= 0) return {};
  const rows = [...weights.entries()].map(([k, w]) => {
    const exact = (w / total) * shots;
    return { k, n: Math.floor(exact), rem: exact - Math.floor(exact) };
  });
  let left = shots - rows.reduce((a, r) => a + r.n, 0);
  for (const r of [...rows].sort((a, b) => b.rem - a.rem || (a.k < b.k ? -1 : 1))) {
    if (left <= 0) break;
    r.n++;
    left--;
  }
  return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.k, r.n]));
}

/** IonQ's probability distribution as counts over the circuit's clbits (largest remainder, sums to `shots`). */
export function probabilitiesToCounts(probs: Map<bigint, number>, c: Circuit, shots: number): Record<string, number> {
  return largestRemainder(byClbits(probs, c), shots);
}
