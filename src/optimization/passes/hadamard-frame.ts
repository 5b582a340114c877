import { opQubits, type GateOp, type Operation } from '../../circuits/ir.js';
import { g, phaseGate } from '../gate-info.js';
import type { Recorder } from '../recorder.js';

/** A global step: its H count may change, so only the whole-circuit check proves it. */
export const HADAMARD_FRAME_RULE = 'global:hadamard-frame';

const hCount = (ops: readonly Operation[]) => ops.reduce((n, o) => n + (o.kind === 'gate' && o.name === 'h' ? 1 : 0), 0);

/**
 * Rewrites the circuit with Hadamards deferred as a frame: the circuit so far is `H_F · emitted`, an
 * `h` toggles its wire in F, and a CNOT with both wires in F is emitted reversed (H⊗H conjugates
 * cx(c,t) into cx(t,c)). When a CNOT has one wire in F, the other wire joins F (an `h` is emitted on
 * it now) if its next gate is an `h` anyway — that `h` then cancels in the frame — else the F wire
 * leaves it (its `h` is emitted). Everything else leaves the frame on its wires.
 *
 * Why (issue 37 item 5): Toffolis on the same target commute and their Hadamard pairs cancel, but a
 * CNOT network between targets in the Hadamard basis (gf2^4_mult's modular reduction) keeps pairs
 * apart, which splits the Hadamard-free regions TODD works in. Seen through the frame the network is
 * reversed CNOTs, and every Toffoli on that target lands in one region.
 *
 * With `cz`, a CNOT whose target is in F and control is not keeps its target there: through the frame
 * it is a cz, written as phases (mod5_4's Toffolis on one target, split by H·cx·H, become one region).
 *
 * Returns the number of Hadamards saved (the step is recorded only when that is positive).
 */
export function hadamardFrame(rec: Recorder, opts: { cz?: boolean } = {}): number {
  // gates only: a measurement or reset would need its wire out of the frame, which is all it adds
  const ops = rec.ops.filter((o): o is GateOp => o.kind === 'gate');
  if (ops.length !== rec.ops.length) return 0;
  const out: GateOp[] = [];
  const frame = new Set<number>();
  // the index of the next op on each wire after position i, computed right to left
  const nextOn: number[][] = [];
  {
    const upcoming = new Map<number, number>();
    for (let i = ops.length - 1; i >= 0; i--) {
      const qs = opQubits(ops[i]!);
      nextOn[i] = qs.map((q) => upcoming.get(q) ?? -1);
      for (const q of qs) upcoming.set(q, i);
    }
  }
  const flush = (q: number) => {
    if (frame.delete(q)) out.push(g('h', [q]));
  };
  const nextIsH = (i: number, slot: number) => {
    const j = nextOn[i]![slot]!;
    const op = j >= 0 ? ops[j]! : undefined;
    return op?.name === 'h';
  };
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.name === 'h' && op.qubits.length === 1) {
      const q = op.qubits[0]!;
      if (!frame.delete(q)) frame.add(q);
      continue;
    }
    if (op.name === 'cx' && op.qubits[0] !== op.qubits[1]) {
      const [c, t] = op.qubits as [number, number];
      if (opts.cz && frame.has(t) && !frame.has(c)) {
        // seen through the frame H_t·cx(c,t)·H_t is cz(c,t): diagonal, written as phases on c, t and
        // their parity (π·c·t = π/2·c + π/2·t − π/2·(c ⊕ t)), so the target stays in the frame
        out.push(phaseGate(c, Math.PI / 2)!, phaseGate(t, Math.PI / 2)!, op, phaseGate(t, -Math.PI / 2)!, op);
        continue;
      }
      if (frame.has(c) !== frame.has(t)) {
        const [inF, other, otherSlot] = frame.has(c) ? [c, t, 1] : [t, c, 0];
        if (nextIsH(i, otherSlot)) {
          out.push(g('h', [other]));
          frame.add(other);
        } else flush(inF);
      }
      out.push(frame.has(c) ? g('cx', [t, c]) : op);
      continue;
    }
    if (op.name === 'swap') {
      const [a, b] = op.qubits as [number, number];
      const fa = frame.has(a);
      const fb = frame.has(b);
      frame.delete(a);
      frame.delete(b);
      if (fa) frame.add(b);
      if (fb) frame.add(a);
      out.push(op);
      continue;
    }
    for (const q of op.qubits) flush(q);
    out.push(op);
  }
  for (const q of [...frame].sort((a, b) => a - b)) out.push(g('h', [q]));
  const saved = hCount(ops) - hCount(out);
  if (saved <= 0) return 0;
  rec.move(
    HADAMARD_FRAME_RULE,
    ops.map((_, i) => i),
    out,
    // the replayer takes an insertion point outside the removed positions: the end of the list
    ops.length,
  );
  return saved;
}
