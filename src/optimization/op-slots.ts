import { opQubits, type Operation } from '../circuits/ir.js';

const qubitsOf = opQubits;

/**
 * The op list of one pass as fixed slots, for passes that make many small rewrites: removing an op
 * or replacing it by an op on the same qubits costs O(log n) instead of a copy of the list. Each
 * slot knows the previous and next op on each of its wires, and a Fenwick tree over the live slots
 * gives an op's current index — what a certificate step records. The pass records its steps with
 * `Recorder.record` and sets the recorder's list from `toOps()` once at the end.
 */
export class OpSlots {
  private readonly ops: (Operation | null)[];
  /** Fenwick tree (1-based) over live flags: prefix sums give current indices. */
  private readonly tree: Int32Array;
  private readonly prevOn: Int32Array[];
  private readonly nextOn: Int32Array[];

  constructor(ops: readonly Operation[]) {
    this.ops = [...ops];
    const n = ops.length;
    this.tree = new Int32Array(n + 1);
    for (let i = 1; i <= n; i++) {
      this.tree[i]! += 1;
      const up = i + (i & -i);
      if (up <= n) this.tree[up]! += this.tree[i]!;
    }
    this.prevOn = ops.map((o) => new Int32Array(qubitsOf(o).length).fill(-1));
    this.nextOn = ops.map((o) => new Int32Array(qubitsOf(o).length).fill(-1));
    const last = new Map<number, number>();
    ops.forEach((op, s) => {
      qubitsOf(op).forEach((q, k) => {
        const p = last.get(q);
        if (p !== undefined) {
          this.prevOn[s]![k] = p;
          this.nextOn[p]![qubitsOf(ops[p]!).indexOf(q)] = s;
        }
        last.set(q, s);
      });
    });
  }

  get length(): number {
    return this.ops.length;
  }

  op(s: number): Operation | null {
    return this.ops[s] ?? null;
  }

  /** The op's index in the current list (live slots before it). */
  index(s: number): number {
    let sum = 0;
    for (let i = s; i > 0; i -= i & -i) sum += this.tree[i]!;
    return sum;
  }

  /** The next slot after s on qubit q (which s's op touches), or −1. */
  nextOnWire(s: number, q: number): number {
    return this.nextOn[s]![qubitsOf(this.ops[s]!).indexOf(q)]!;
  }

  /** The nearest live slot before s, or −1. */
  prevLive(s: number): number {
    for (let i = s - 1; i >= 0; i--) if (this.ops[i]) return i;
    return -1;
  }

  /** The nearest live slot after s (or the first with s = −1), or −1. */
  nextLive(s: number): number {
    for (let i = s + 1; i < this.ops.length; i++) if (this.ops[i]) return i;
    return -1;
  }

  /** Replaces the op of slot s by one on the same qubits, in the same order. */
  replace(s: number, op: Operation): void {
    const a = qubitsOf(this.ops[s]!);
    const b = qubitsOf(op);
    if (a.length !== b.length || a.some((q, i) => q !== b[i])) throw new Error('op-slots: a replacement must act on the same qubits');
    this.ops[s] = op;
  }

  remove(s: number): void {
    const qs = qubitsOf(this.ops[s]!);
    qs.forEach((q, k) => {
      const p = this.prevOn[s]![k]!;
      const n = this.nextOn[s]![k]!;
      if (p >= 0) this.nextOn[p]![qubitsOf(this.ops[p]!).indexOf(q)] = n;
      if (n >= 0) this.prevOn[n]![qubitsOf(this.ops[n]!).indexOf(q)] = p;
    });
    this.ops[s] = null;
    for (let i = s + 1; i < this.tree.length; i += i & -i) this.tree[i]! -= 1;
  }

  toOps(): Operation[] {
    return this.ops.filter((o): o is Operation => o !== null);
  }
}
