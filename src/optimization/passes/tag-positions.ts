import type { GateOp, Operation } from '../../circuits/ir.js';

/**
 * The op list of one pass as its original ops ("tags") plus the gates the pass put among them,
 * for passes that plan on the original list and then make one step per planned change: removing
 * or replacing an original op, and inserting a gate before the first original op at or after
 * an index that is still there. Each answer costs O(log n) (a Fenwick tree over per-original
 * counts), where a list mirrored by a tag array cost a copy and a search per step: quadratic on
 * the wide scaled circuits. The pass records its steps with `Recorder.record`/`recordMove` and
 * sets the recorder's list from `toOps()` at the end.
 *
 * Order: before original i stand the gates inserted before it (in insertion order), then i itself
 * (the op as replaced, or nothing once removed); gates inserted after every original stand last.
 */
export class TagPositions {
  private readonly items: (Operation | null)[];
  /**
   * Union-find towards the first original at or after i still there unchanged (n: none); a replaced
   * or removed op no longer answers to its tag.
   */
  private readonly nextTagged: Int32Array;
  private readonly inserted: GateOp[][];
  /** Fenwick tree (1-based) over the counts inserted[i].length + (items[i] ? 1 : 0), i = 0 … n. */
  private readonly tree: Int32Array;

  constructor(ops: readonly Operation[]) {
    const n = ops.length;
    this.items = [...ops];
    this.nextTagged = Int32Array.from({ length: n + 1 }, (_, i) => i);
    this.inserted = Array.from({ length: n + 1 }, () => []);
    this.tree = new Int32Array(n + 2);
    for (let i = 1; i <= n; i++) {
      this.tree[i]! += 1;
      const up = i + (i & -i);
      if (up <= n + 1) this.tree[up]! += this.tree[i]!;
    }
  }

  /** The op at tag i: the original as given, or what `replace` put there. */
  original(i: number): Operation {
    return this.items[i]!;
  }

  /** The current position of original i (which must still be tagged). */
  pos(i: number): number {
    return this.prefix(i) - 1;
  }

  /** Removes original i. */
  remove(i: number): void {
    this.untag(i);
    this.items[i] = null;
    this.add(i, -1);
  }

  /** Replaces original i by `op` in place, or removes it when there is none. */
  replace(i: number, op: GateOp | undefined): void {
    if (!op) return this.remove(i);
    this.untag(i);
    this.items[i] = op;
  }

  /**
   * Inserts `gate` just before the first tagged original at or after index `at` (at the end when
   * there is none), after the gates inserted there before; returns the position it takes.
   */
  insertBefore(at: number, gate: GateOp): number {
    const r = this.firstTagged(Math.min(at, this.items.length));
    const position = this.prefix(r) - (this.items[r] ? 1 : 0);
    this.inserted[r]!.push(gate);
    this.add(r, 1);
    return position;
  }

  toOps(): Operation[] {
    const out: Operation[] = [];
    for (let i = 0; i <= this.items.length; i++) {
      for (const g of this.inserted[i]!) out.push(g);
      const op = this.items[i];
      if (op) out.push(op);
    }
    return out;
  }

  private untag(i: number): void {
    this.nextTagged[i] = i + 1;
  }

  private firstTagged(i: number): number {
    let r = i;
    while (this.nextTagged[r] !== r) r = this.nextTagged[r]!;
    // path compression: every index passed now points at the answer
    for (let k = i; k !== r;) {
      const next = this.nextTagged[k]!;
      this.nextTagged[k] = r;
      k = next;
    }
    return r;
  }

  /** Sum of the counts of indices 0 … i. */
  private prefix(i: number): number {
    let sum = 0;
    for (let k = i + 1; k > 0; k -= k & -k) sum += this.tree[k]!;
    return sum;
  }

  private add(i: number, d: number): void {
    for (let k = i + 1; k < this.tree.length; k += k & -k) this.tree[k]! += d;
  }
}
