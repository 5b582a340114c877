import type { GateOp } from '../../circuits/ir.js';
import { PAULI_ROTATIONS_RULE } from '../../verification/certificate-types.js';
import { addAngles, quarterTurns, rotationDistance } from '../../verification/numeric-policy.js';
import { namGateCount } from '../cost-model.js';
import { g, phaseOf } from '../gate-info.js';
import { cliffordPhase, commuting, keyOf, readable, signOf, support, Tableau, type Pauli } from '../pauli-frame.js';
import type { Recorder } from '../recorder.js';
import { gadget, synthesizeBlock } from './pauli-synthesis.js';

/** A rotation exp(−i·angle/2·P) read from the circuit: P in Y-form sign (signOf(P)·angle is its angle). */
interface Rotation {
  readonly pauli: Pauli;
  /** The op index (in the span) of its phase gate. */
  readonly at: number;
  /** Its angle against the Y-form of P (the phase gate's angle times signOf). */
  readonly angle: number;
}
/** Rotations merged into one: members (rotation numbers, increasing), summed angle. */
interface Group {
  readonly pauli: Pauli;
  readonly members: number[];
  angle: number;
  readonly qubits: number[];
  /** Members whose angles cancel: the group is removed (entry −1 of the trace). */
  drop: boolean;
}

/**
 * How many of the earliest ready rotations the scheduler considers at each choice, per qubit of the
 * run: a Trotter layer has about one ready rotation per qubit, long commuting runs on few qubits many.
 */
const READY_PER_QUBIT = 4;
/** How far back a rotation looks for one to merge with (bounds the cost on long commuting runs). */
const LOOKBACK = 400;

function readSpan(ops: readonly GateOp[], n: number): { rotations: Rotation[]; frame: Tableau } {
  const frame = new Tableau(n);
  const rotations: Rotation[] = [];
  ops.forEach((op, at) => {
    if (phaseOf(op) !== undefined && cliffordPhase(op) === undefined) {
      const pauli = frame.pullZ(op.qubits[0]!);
      rotations.push({ pauli, at, angle: signOf(pauli) * phaseOf(op)! });
    } else frame.append(op);
  });
  return { rotations, frame };
}

const bitsOf = (v: bigint): number[] => {
  const out: number[] = [];
  for (let q = 0; v; q++, v >>= 1n) if (v & 1n) out.push(q);
  return out;
};

/**
 * Phase folding over Pauli rotations: each rotation merges into the latest earlier one about the
 * same Pauli (±) when every rotation in between commutes with it. A merged angle that would be a
 * non-zero multiple of π/2 (a Clifford) is not formed: the run's Clifford part must stay as it is.
 */
function mergeRotations(rotations: readonly Rotation[], tol: number): Group[] {
  const groups: Group[] = [];
  const groupOf: number[] = [];
  const byKey = new Map<string, number[]>();
  for (let k = 0; k < rotations.length; k++) {
    const r = rotations[k]!;
    const key = keyOf(r.pauli);
    let target = -1;
    // the latest earlier group about the same Pauli, if nothing between anticommutes with r
    const same = byKey.get(key);
    const last = same?.[same.length - 1];
    if (last !== undefined) {
      const from = groups[last]!.members[groups[last]!.members.length - 1]!;
      let ok = k - from <= LOOKBACK;
      for (let e = from + 1; ok && e < k; e++) if (!commuting(rotations[e]!.pauli, r.pauli)) ok = false;
      const sum = addAngles(groups[last]!.angle, r.angle);
      const q = quarterTurns(sum);
      if (ok && (q === undefined || rotationDistance(sum, 0) <= tol)) target = last;
    }
    if (target >= 0) {
      groups[target]!.members.push(k);
      groups[target]!.angle = addAngles(groups[target]!.angle, r.angle);
    } else {
      groups.push({ pauli: r.pauli, members: [k], angle: r.angle, qubits: bitsOf(support(r.pauli)), drop: false });
      byKey.set(key, [...(same ?? []), groups.length - 1]);
      target = groups.length - 1;
    }
    groupOf.push(target);
  }
  for (const gr of groups) gr.drop = gr.members.length > 1 && rotationDistance(gr.angle, 0) <= tol;
  return groups;
}

/** Merges in place: the first member's phase gate takes the group's angle, the others go. */
function inPlace(ops: readonly GateOp[], rotations: readonly Rotation[], groups: readonly Group[]): GateOp[] {
  const change = new Map<number, GateOp | null>();
  for (const gr of groups) {
    if (gr.members.length === 1) continue;
    if (gr.drop) {
      for (const m of gr.members) change.set(rotations[m]!.at, null);
      continue;
    }
    const first = rotations[gr.members[0]!]!;
    const op = ops[first.at]!;
    change.set(first.at, g('rz', op.qubits, [signOf(first.pauli) * gr.angle]));
    for (const m of gr.members.slice(1)) change.set(rotations[m]!.at, null);
  }
  const out: GateOp[] = [];
  ops.forEach((op, i) => {
    const c = change.get(i);
    if (c === undefined) out.push(op);
    else if (c !== null) out.push(c);
  });
  return out;
}

/**
 * Orders the merged rotations (a topological order of "anticommutes and comes first") so that
 * rotations on the same pair of qubits that commute stand next to each other — in a Trotter step
 * XX on (i, i+1) beside YY on (i, i+1), YY beside ZZ — and can share one CNOT pair. Greedy: a ready
 * rotation whose partner (a later commuting rotation on the same pair) has no other pending
 * predecessor goes now with its partner; otherwise the ready rotation that unblocks most partners.
 */
function schedule(groups: readonly Group[], n: number): Group[][] {
  const window = READY_PER_QUBIT * n + 16;
  const m = groups.length;
  const preds: number[][] = groups.map(() => []);
  const succs: number[][] = groups.map(() => []);
  const onQubit = new Map<number, number[]>();
  for (let v = 0; v < m; v++) {
    const seen = new Set<number>();
    for (const q of groups[v]!.qubits) {
      for (const u of onQubit.get(q) ?? []) {
        if (seen.has(u)) continue;
        seen.add(u);
        if (!commuting(groups[u]!.pauli, groups[v]!.pauli)) {
          preds[v]!.push(u);
          succs[u]!.push(v);
        }
      }
      onQubit.set(q, [...(onQubit.get(q) ?? []), v]);
    }
  }
  const pending = preds.map((p) => p.length);
  const done = new Array<boolean>(m).fill(false);
  const pairKey = (v: number) => (groups[v]!.qubits.length === 2 ? groups[v]!.qubits.join(',') : undefined);
  const byPair = new Map<string, number[]>();
  for (let v = 0; v < m; v++) {
    const k = pairKey(v);
    if (k) byPair.set(k, [...(byPair.get(k) ?? []), v]);
  }
  const fits = (v: number, block: readonly number[]) => {
    const qs = new Set(groups[block[0]!]!.qubits.length === 2 ? groups[block[0]!]!.qubits : block.flatMap((b) => groups[b]!.qubits));
    return groups[v]!.qubits.every((q) => qs.has(q)) && block.every((b) => commuting(groups[b]!.pauli, groups[v]!.pauli));
  };
  /** The next not-done commuting rotation on u's pair, after u. */
  const partner = (u: number): number | undefined => {
    const k = pairKey(u);
    if (!k) return undefined;
    for (const v of byPair.get(k)!) if (v > u && !done[v] && commuting(groups[u]!.pauli, groups[v]!.pauli)) return v;
    return undefined;
  };
  const ready = new Set<number>();
  for (let v = 0; v < m; v++) if (pending[v] === 0) ready.add(v);
  const emit = (v: number) => {
    done[v] = true;
    ready.delete(v);
    for (const s of succs[v]!) if (--pending[s]! === 0) ready.add(s);
  };
  const blocks: Group[][] = [];
  while (ready.size) {
    // the earliest ready rotations only: bounds each choice on long runs of commuting rotations
    const order = [...ready].sort((a, b) => a - b).slice(0, window);
    let start: number | undefined;
    for (const u of order) {
      const v = partner(u);
      if (v !== undefined && preds[v]!.every((p) => p === u || done[p])) {
        start = u;
        break;
      }
    }
    if (start === undefined) {
      // the ready rotation blocking the most partners of other ready rotations
      let best = order[0]!;
      let bestScore = -1;
      for (const u of order) {
        let score = 0;
        for (const s of succs[u]!) {
          const k = pairKey(s);
          if (k && (byPair.get(k) ?? []).some((w) => w !== u && ready.has(w) && partner(w) === s)) score++;
        }
        if (score > bestScore) [best, bestScore] = [u, score];
      }
      start = best;
    }
    const block = [start];
    emit(start);
    for (let grew = true; grew;) {
      grew = false;
      for (const v of [...ready].sort((a, b) => a - b).slice(0, window)) {
        if (fits(v, block)) {
          block.push(v);
          emit(v);
          grew = true;
          break;
        }
      }
    }
    blocks.push(block.map((v) => groups[v]!));
  }
  return blocks;
}

/** The trace entries of a new run made of `emitted` groups in order (dropped ones emit no rotation). */
function traceOf(emitted: readonly Group[]): number[][] {
  let j = 0;
  return emitted.map((gr) => [gr.drop ? -1 : j++, ...gr.members]);
}

/**
 * Pauli-rotation merging and gadget resynthesis over each maximal run of gates the pass reads
 * (Clifford gates and phase gates). Returns the number of runs rewritten. A run is rewritten only
 * when its new form has fewer gates in Nam's set {h, rz, x, cx}; each rewrite is one
 * `pauli-rotations` step, proven by the certificate replayer's own reading of both runs.
 * `resynthesize`: the run rebuilt from its merged rotations (only when its Clifford part is the
 * identity and every rotation acts on at most two qubits, as in product formulas); otherwise the
 * merges alone, in place.
 */
export function mergePauliRotations(rec: Recorder, resynthesize: boolean): number {
  let rewrites = 0;
  for (let start = 0; start < rec.ops.length && !rec.stopped();) {
    const op = rec.ops[start]!;
    if (op.kind !== 'gate' || !readable(op)) {
      start++;
      continue;
    }
    let end = start;
    while (end < rec.ops.length && rec.ops[end]!.kind === 'gate' && readable(rec.ops[end] as GateOp)) end++;
    const ops = rec.ops.slice(start, end) as GateOp[];
    const n = ops.reduce((mx, o) => Math.max(mx, ...o.qubits), 0) + 1;
    const { rotations, frame } = readSpan(ops, n);
    // the rebuild needs an identity frame and rotations on at most two qubits: check before any work
    const eligible = frame.isIdentity() && rotations.every((r) => bitsOf(support(r.pauli)).length <= 2);
    if (resynthesize && !eligible) {
      start = end;
      continue;
    }
    const groups = mergeRotations(rotations, rec.tol);
    const candidates: { ops: GateOp[]; trace: number[][] }[] = [];
    const before = namGateCount(ops);
    // merging alone is phase folding, which the phase-polynomial passes already do (and whose later
    // global steps then stay provable): the pipeline asks for the resynthesis only
    if (!resynthesize && groups.length < rotations.length) candidates.push({ ops: inPlace(ops, rotations, groups), trace: traceOf(groups) });
    if (resynthesize) {
      const blocks = schedule(groups, n);
      const out: GateOp[] = [];
      const emitted: Group[] = [];
      for (const all of blocks) {
        // cancelled groups emit nothing; they commute with the block, so they go first
        emitted.push(...all.filter((gr) => gr.drop));
        const block = all.filter((gr) => !gr.drop);
        const syn = block.length > 1 ? synthesizeBlock(block) : undefined;
        if (syn) {
          out.push(...syn.ops);
          emitted.push(...(syn.order as Group[]));
        } else
          for (const gr of block) {
            out.push(...gadget(gr.pauli, gr.angle));
            emitted.push(gr);
          }
      }
      candidates.push({ ops: out, trace: traceOf(emitted) });
    }
    let best: { ops: GateOp[]; trace: number[][] } | undefined;
    let bestCost = before;
    for (const c of candidates) {
      const cost = namGateCount(c.ops);
      if (cost < bestCost) [best, bestCost] = [c, cost];
    }
    if (best) {
      const deviation = groups.reduce((s, gr) => s + (gr.drop ? rotationDistance(gr.angle, 0) : 0), 0);
      rec.replaceRun(PAULI_ROTATIONS_RULE, start, end, best.ops, { trace: best.trace }, deviation);
      rewrites++;
      start += best.ops.length;
    } else start = end;
  }
  return rewrites;
}
