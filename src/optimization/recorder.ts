import { opQubits, type GateOp, type Operation } from '../circuits/ir.js';
import { WIDEN_RULE, type CertificateStep } from '../verification/certificate-types.js';
import { APPROX_EPS, CERTIFICATE_BUDGET } from '../verification/numeric-policy.js';
import { stepDeviation } from './step-deviation.js';

/**
 * `items` without the ones at `removed` (ascending) and with `inserted` placed before index `at` (which
 * may equal the length): a step's splice, built from native slices (a step costs a copy, not a loop of lookups).
 */
export function spliced<T>(items: readonly T[], removed: readonly number[], inserted: readonly T[], at: number): T[] {
  const parts: (readonly T[])[] = [];
  let from = 0;
  let placed = false;
  for (const p of removed) {
    if (!placed && at <= p) {
      parts.push(items.slice(from, at), inserted);
      from = at;
      placed = true;
    }
    parts.push(items.slice(from, p));
    from = p + 1;
  }
  if (!placed) {
    parts.push(items.slice(from, at), inserted);
    from = at;
  }
  parts.push(items.slice(from));
  return ([] as T[]).concat(...parts);
}

/**
 * The working op list of one optimization run. Every change goes through `apply`, which
 * records the certificate step (rule, positions, replaced ops, new ops) as it splices.
 */
export class Recorder {
  ops: Operation[];
  readonly steps: CertificateStep[] = [];
  /** Optional veto, used by the time budget: when it returns true no more rewrites happen. */
  stopped: () => boolean = () => false;
  /**
   * The later, hard limit for finishing work done after the search stopped (the teleport stage):
   * a budget is a cap on compute, anonymous callers' included, never a suggestion.
   */
  finishStopped: () => boolean = () => false;
  /** Sum of the local steps' numeric deviations so far (the passes' estimate of what the replayer will count). */
  deviation = 0;
  /**
   * The rounding tolerance passes may use now: APPROX_EPS until half the certificate budget is
   * spent, then 0 (only exact rewrites), so the replayer's sum never reaches the budget.
   */
  tol: number = APPROX_EPS;
  /** Why the search stopped early (stop-when-stalled rules), for the answer's notes. */
  notes: string[] = [];

  constructor(ops: readonly Operation[]) {
    this.ops = [...ops];
  }

  /** Counts a deviation against the certificate budget (also what earlier parts of one certificate spent). */
  charge(deviation: number): void {
    this.deviation += deviation;
    if (this.deviation > CERTIFICATE_BUDGET / 2) this.tol = 0;
  }

  /** An independent copy (same steps so far) to try another strategy on. */
  fork(): Recorder {
    const r = new Recorder(this.ops);
    // A loop, not a spread: one argument per step overflows the stack near 10^5 steps.
    for (const step of this.steps) r.steps.push(step);
    r.stopped = this.stopped;
    r.finishStopped = this.finishStopped;
    r.deviation = this.deviation;
    r.tol = this.tol;
    r.notes = [...this.notes];
    return r;
  }

  apply(rule: string, positions: readonly number[], inserted: readonly GateOp[], anchor: 'first' | 'last' = 'first'): void {
    const pos = [...positions];
    this.record(
      rule,
      pos,
      pos.map((p) => this.ops[p]!),
      inserted,
      anchor,
    );
    this.ops = spliced(this.ops, pos, inserted, anchor === 'last' ? pos[pos.length - 1]! : pos[0]!);
  }

  /**
   * Records a step (and charges its deviation) without touching `ops`: for passes that rewrite a
   * working copy of their own (op-slots.ts) and set `ops` once at the end.
   */
  record(rule: string, positions: readonly number[], replaced: readonly Operation[], inserted: readonly GateOp[], anchor: 'first' | 'last' = 'first'): void {
    for (let i = 1; i < positions.length; i++) if (positions[i]! <= positions[i - 1]!) throw new Error(`recorder: positions not increasing for ${rule}`);
    const step = { rule, positions: Object.freeze([...positions]), replaced: Object.freeze([...replaced]), inserted: Object.freeze([...inserted]) };
    this.steps.push(Object.freeze(anchor === 'last' ? { ...step, anchor } : step));
    this.charge(stepDeviation(rule, replaced, inserted));
  }

  /** Takes over another fork's state (its steps extend ours). */
  adopt(other: Recorder): void {
    this.ops = other.ops;
    this.deviation = other.deviation;
    this.tol = other.tol;
    this.notes = other.notes;
    this.steps.splice(0, this.steps.length, ...other.steps);
  }

  /** A global step that removes `positions` and inserts `inserted` before index `insertAt` (of the current list). */
  move(rule: string, positions: readonly number[], inserted: readonly GateOp[], insertAt: number): void {
    const pos = [...positions].sort((a, b) => a - b);
    this.recordMove(
      rule,
      pos,
      pos.map((p) => this.ops[p]!),
      inserted,
      insertAt,
    );
    this.ops = spliced(this.ops, pos, inserted, insertAt);
  }

  /** Records a `move` step (ascending positions) without touching `ops`, as `record` does for `apply`. */
  recordMove(rule: string, positions: readonly number[], replaced: readonly Operation[], inserted: readonly GateOp[], insertAt: number): void {
    this.steps.push(Object.freeze({ rule, positions: Object.freeze([...positions]), replaced: Object.freeze([...replaced]), inserted: Object.freeze([...inserted]), insertAt }));
  }

  /**
   * An in-place step over the whole list (its `span`): the op at positions[i] becomes inPlace[i], or is
   * removed when null; `deviation` is the pass's estimate of what the checker will count for it.
   */
  rewrite(rule: string, positions: readonly number[], inPlace: readonly (GateOp | null)[], witness: NonNullable<CertificateStep['witness']>, deviation: number): void {
    const pos = [...positions];
    const replaced = pos.map((p) => this.ops[p]!);
    const span = Object.freeze([0, this.ops.length] as const);
    this.steps.push(Object.freeze({ rule, positions: Object.freeze(pos), replaced: Object.freeze(replaced), inserted: Object.freeze([]), inPlace: Object.freeze([...inPlace]), witness, span }));
    this.charge(deviation);
    const at = new Map(pos.map((p, i) => [p, inPlace[i]!] as const));
    const next: Operation[] = [];
    for (let i = 0; i < this.ops.length; i++) {
      const r = at.get(i);
      if (r === undefined) next.push(this.ops[i]!);
      else if (r !== null) next.push(r);
    }
    this.ops = next;
  }

  /**
   * A step replacing the contiguous run [from, to) by `inserted`, with a witness for its checker
   * (rule `pauli-rotations`); `deviation` is the pass's estimate of what the checker counts.
   */
  replaceRun(rule: string, from: number, to: number, inserted: readonly GateOp[], witness: NonNullable<CertificateStep['witness']>, deviation: number): void {
    const positions = Object.freeze(Array.from({ length: to - from }, (_, i) => from + i));
    const replaced = Object.freeze(this.ops.slice(from, to));
    this.steps.push(Object.freeze({ rule, positions, replaced, inserted: Object.freeze([...inserted]), witness }));
    this.charge(deviation);
    this.ops = [...this.ops.slice(0, from), ...inserted, ...this.ops.slice(to)];
  }

  /** A `widen` step: from here on the circuit has `numQubits` wires (the new ones idle until used). */
  widen(numQubits: number): void {
    this.steps.push(Object.freeze({ rule: WIDEN_RULE, positions: Object.freeze([]), replaced: Object.freeze([]), inserted: Object.freeze([]), numQubits }));
  }

  /** Index of the next op at or after `from` touching qubit q, or -1. */
  nextOn(q: number, from: number): number {
    if (!this.indexed()) {
      // a near neighbour is found by a short scan: passes that rewrite and look again after
      // every step would otherwise rebuild the index per step
      const to = Math.min(this.ops.length, from + NEAR);
      for (let i = from; i < to; i++) if (opQubits(this.ops[i]!).includes(q)) return i;
      if (to === this.ops.length) return -1;
    }
    const at = this.wire(q);
    const k = firstAtLeast(at, from);
    return k < at.length ? at[k]! : -1;
  }

  /** Index of the last op at or before `from` touching qubit q, or -1. */
  prevOn(q: number, from: number): number {
    if (!this.indexed()) {
      const to = Math.max(-1, from - NEAR);
      for (let i = from; i > to; i--) if (opQubits(this.ops[i]!).includes(q)) return i;
      if (to === -1) return -1;
    }
    const at = this.wire(q);
    const k = firstAtLeast(at, from + 1);
    return k > 0 ? at[k - 1]! : -1;
  }

  /**
   * The positions of the ops on each wire, for `ops` as it stands: a scan along the list from an op
   * to its wire neighbour costs the ops in between, and the last op of every wire scanned to the end
   * (qubits × gates on the wide scaled circuits). Rebuilt when `ops` is replaced; every change here
   * replaces the array rather than editing it, so its identity (and length, as a guard) tells.
   */
  private wires: { ops: readonly Operation[]; length: number; at: Map<number, number[]> } | undefined;

  private indexed(): boolean {
    return this.wires !== undefined && this.wires.ops === this.ops && this.wires.length === this.ops.length;
  }

  private wire(q: number): readonly number[] {
    if (!this.wires || !this.indexed()) {
      const at = new Map<number, number[]>();
      this.ops.forEach((o, i) => {
        for (const x of opQubits(o)) {
          const list = at.get(x);
          // an op naming a qubit twice is listed once, as a scan would find it once
          if (!list) at.set(x, [i]);
          else if (list[list.length - 1] !== i) list.push(i);
        }
      });
      this.wires = { ops: this.ops, length: this.ops.length, at };
    }
    return this.wires.at.get(q) ?? NONE;
  }
}

const NONE: readonly number[] = [];
/** How far nextOn/prevOn scan before they build the wire index (a few gates' worth of other wires). */
const NEAR = 64;

/** The first index of the ascending list whose value is at least x (the length when none is). */
function firstAtLeast(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
