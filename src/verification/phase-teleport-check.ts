import { opQubits, type GateOp, type Operation } from '../circuits/ir.js';
import { phaseAngleOf } from './certificate-rules.js';
import { TELEPORT_TRACE as T, type CertificateStep } from './certificate-types.js';
import { CERTIFICATE_BUDGET, quarterTurns, rotationDistance } from './numeric-policy.js';
import { GraphSum, groupAngle, type Wire } from './phase-teleport-graph.js';

/**
 * The checker of rule `phase-teleport` (format and variable numbering in
 * certificate-types.ts). It shares no code with the optimizer: it builds its own path sum
 * of the circuit before the step — Clifford phase as linear coefficients (quarter turns) and
 * half-turn couplings, each non-Clifford one-qubit phase gate as a gadget (hub h, leaf g:
 * Σ_{h,g} (−1)^{h(g ⊕ f)} e^{iθg} = 2·e^{iθf}), every wire ended at a free variable through
 * H·H — then replays the trace, checking each entry is an instance of its rule:
 *  - omega y: y summed, L_y odd; Σ_y i^{L·y}(−1)^{y·⊕N(y)} adds (−L_y/4)·⊕N(y);
 *  - pivot y y': y, y' summed and coupled, L_y even; Σ_y forces y' := ⊕(N(y)∖y') ⊕ L_y/2;
 *  - elim y: y summed, uncoupled, L_y = 0;
 *  - rebuild hub: L odd; the hub is summed out (omega), its leaf becomes an ordinary
 *    variable whose Clifford phase joins the gadget, and a new hub and leaf carry it;
 *  - fuse A B: both hubs with even L and the same neighbours besides their clean leaves:
 *    the leaves are forced to S ⊕ L_A/2 and S ⊕ L_B/2, so only θ_A ± θ_B matters;
 *  - settle hub: no neighbour besides its leaf (a global phase: its gates are free), or an
 *    angle that is k quarter turns (numeric-policy.ts `quarterTurns`): hub and leaf become
 *    ordinary variables, the leaf with the Clifford phase k/4.
 * Each is an identity of sums whatever the unsettled angles are: the circuit depends on the tracked
 * gates only through each group's Σ sign·angle. Numbers follow the one numeric policy: the step's
 * deviation (what the replayer adds to the certificate's) is, for every group, the rotation distance
 * between its sum before and after (for a settled group, of both from k·π/2), plus twice the
 * distance from k·π/2 of every phase gate taken as Clifford; a step above the budget is refused.
 */

/** The path sum of `ops`; returns the build's rounding (twice the distance of each phase gate taken as Clifford). */
function build(ops: readonly Operation[], gs: GraphSum): number {
  const n = ops.reduce((m, o) => Math.max(m, ...opQubits(o)), -1) + 1;
  const wires: Wire[] = [];
  for (let q = 0; q < n; q++) wires.push({ vars: new Set([gs.fresh('free')]), c: false });
  const close = (q: number) => {
    const z1 = gs.fresh('sum');
    const z2 = gs.fresh('free');
    gs.half(wires[q]!, { vars: new Set([z1]), c: false });
    gs.edge(z1, z2);
  };
  const opaque = (q: number) => {
    close(q);
    wires[q] = { vars: new Set([gs.fresh('free')]), c: false };
  };
  let rounding = 0;
  let open = false;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.kind !== 'gate') {
      if (open) for (let q = 0; q < n; q++) opaque(q);
      open = false;
      continue;
    }
    open = true;
    const [a, b] = op.qubits as [number, number];
    const theta = phaseAngleOf(op);
    if (theta !== undefined) {
      const k = quarterTurns(theta);
      if (k !== undefined) {
        rounding += 2 * rotationDistance(theta, k * (Math.PI / 2));
        gs.quarter(k, [...wires[a]!.vars], wires[a]!.c);
      } else {
        const hub = gs.fresh('hub');
        const leaf = gs.fresh('leaf');
        gs.edge(hub, leaf);
        gs.half({ vars: new Set([hub]), c: false }, wires[a]!);
        gs.gadgets.set(hub, { leaf, quarters: 0, members: [{ pos: i, sign: 1 }], free: false });
      }
      continue;
    }
    // a gate on repeated qubits is malformed: no structure is assumed for it
    const name = new Set(op.qubits).size === op.qubits.length ? op.name : '';
    switch (name) {
      case 'h': {
        const y: Wire = { vars: new Set([gs.fresh('sum')]), c: false };
        gs.half(wires[a]!, y);
        wires[a] = y;
        break;
      }
      case 'x':
        wires[a] = { vars: wires[a]!.vars, c: !wires[a]!.c };
        break;
      case 'y': // Y ∝ X·Z
        gs.quarter(2, [...wires[a]!.vars], wires[a]!.c);
        wires[a] = { vars: wires[a]!.vars, c: !wires[a]!.c };
        break;
      case 'cx': {
        const t = new Set(wires[b]!.vars);
        for (const v of wires[a]!.vars) if (!t.delete(v)) t.add(v);
        wires[b] = { vars: t, c: wires[b]!.c !== wires[a]!.c };
        break;
      }
      case 'cz':
        gs.half(wires[a]!, wires[b]!);
        break;
      case 'swap':
        [wires[a], wires[b]] = [wires[b]!, wires[a]!];
        break;
      case 'id':
        break;
      default:
        for (const q of op.qubits) opaque(q);
    }
  }
  for (let q = 0; q < n; q++) close(q);
  return rounding;
}

/** Replays the trace; `angle(pos)` is a tracked gate's angle before the step. A reason when an entry is not an instance. */
function replay(gs: GraphSum, trace: readonly (readonly number[])[], angle: (pos: number) => number): string | undefined {
  const isVar = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) < gs.kind.length;
  for (let t = 0; t < trace.length; t++) {
    const e: unknown = trace[t];
    if (!Array.isArray(e)) return `trace entry ${t}: malformed`;
    const [op, u, w] = e as number[];
    const bad = (why: string) => `trace entry ${t} [${e.join(', ')}]: ${why}`;
    if (!isVar(u) || (e.length === 3 && !isVar(w)) || e.length !== (op === T.pivot || op === T.fuse ? 3 : 2)) return bad('malformed');
    switch (op) {
      case T.omega:
        if (gs.kind[u] !== 'sum' || gs.lin[u]! % 2 !== 1) return bad('not a summed variable with an odd coefficient');
        gs.omega(u);
        break;
      case T.pivot:
        if (gs.kind[u] !== 'sum' || gs.lin[u]! % 2 !== 0 || gs.kind[w!] !== 'sum' || !gs.nb[u]!.has(w!)) return bad('not a pivot of two coupled summed variables');
        gs.pivot(u, w!);
        break;
      case T.elim:
        if (gs.kind[u] !== 'sum' || gs.lin[u] !== 0 || gs.nb[u]!.size !== 0) return bad('the variable is not isolated');
        gs.cut(u);
        break;
      case T.rebuild: {
        const gd = gs.gadgets.get(u);
        if (!gd || gs.lin[u]! % 2 !== 1) return bad('not a hub with an odd coefficient');
        gs.omega(u);
        // the leaf's Clifford phase joins the gadget (exactly: whole quarter turns)
        gd.quarters = (gd.quarters + gs.lin[gd.leaf]!) % 4;
        gs.lin[gd.leaf] = 0;
        gs.kind[gd.leaf] = 'sum';
        gs.gadgets.delete(u);
        const hub = gs.fresh('hub');
        const leaf = gs.fresh('leaf');
        gs.edge(hub, leaf);
        gs.edge(hub, gd.leaf);
        gs.gadgets.set(hub, { ...gd, leaf });
        break;
      }
      case T.fuse: {
        const a = gs.gadgets.get(u);
        const b = gs.gadgets.get(w!);
        if (!a || !b || u === w) return bad('not two gadget hubs');
        if (gs.lin[u]! % 2 !== 0 || gs.lin[w!]! % 2 !== 0) return bad('a hub has an odd coefficient');
        const la = gs.legs(u, a);
        const lb = gs.legs(w!, b);
        if (!la || !lb || la.length === 0 || la.join() !== lb.join()) return bad('the gadgets act on different parities');
        const s = gs.lin[u] === gs.lin[w!] ? 1 : -1;
        a.quarters = (((a.quarters + s * b.quarters) % 4) + 4) % 4;
        for (const m of b.members) a.members.push({ pos: m.pos, sign: s === 1 ? m.sign : m.sign === 1 ? -1 : 1 });
        gs.cut(w!);
        gs.cut(b.leaf);
        gs.gadgets.delete(w!);
        break;
      }
      case T.settle: {
        const gd = gs.gadgets.get(u);
        if (!gd || gs.lin[u]! % 2 !== 0) return bad('not a hub with an even coefficient');
        const legs = gs.legs(u, gd);
        if (!legs) return bad('the leaf is not clean');
        if (legs.length === 0) {
          gd.free = true;
          gs.cut(u);
          gs.cut(gd.leaf);
        } else {
          const k = quarterTurns(groupAngle(gd, angle, true));
          if (k === undefined) return bad('the angle is not a multiple of π/2');
          gd.settled = k;
          gs.kind[u] = 'sum';
          gs.kind[gd.leaf] = 'sum';
          gs.lin[gd.leaf] = k;
        }
        gs.gadgets.delete(u);
        gs.done.push(gd);
        break;
      }
      default:
        return bad('unknown entry');
    }
  }
  return undefined;
}

const angleOf = (op: Operation | null | undefined): number | undefined => (op === null ? 0 : op && op.kind === 'gate' ? phaseAngleOf(op) : undefined);

/**
 * Checks a `phase-teleport` step against the op list it applies to: a reason when it is not an
 * instance, else its numeric deviation (counted by the replayer against the certificate budget).
 */
export function checkPhaseTeleport(all: readonly Operation[], step: CertificateStep): string | number {
  const { positions, inPlace, witness, span } = step;
  if (!inPlace || inPlace.length !== positions.length || step.inserted.length !== 0) return 'in-place changes do not match the positions';
  if (!witness || !Array.isArray(witness.trace)) return 'no reduction trace';
  if (!Array.isArray(span) || span.length !== 2 || !Number.isInteger(span[0]) || !Number.isInteger(span[1]) || span[0] < 0 || span[1] > all.length || span[0] >= span[1]) {
    return 'the span is not a range of the op list';
  }
  const [from, to] = span as [number, number];
  const ops = all.slice(from, to);
  const after = new Map<number, GateOp | null>();
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]! - from;
    if (p < 0 || positions[i]! >= to) return `position ${positions[i]} is outside the span`;
    const before = ops[p]!;
    const now = inPlace[i];
    if (now === undefined) return 'in-place changes do not match the positions';
    if (before.kind !== 'gate' || angleOf(before) === undefined) return `op at position ${positions[i]} is not a phase gate`;
    if (now !== null && (now.kind !== 'gate' || angleOf(now) === undefined || now.qubits.length !== 1 || now.qubits[0] !== before.qubits[0])) {
      return `the new op at position ${positions[i]} is not a phase gate on the same qubit`;
    }
    after.set(p, now);
  }
  const gs = new GraphSum();
  let deviation = build(ops, gs);
  const was = (pos: number) => angleOf(ops[pos])!;
  const now = (pos: number) => angleOf(after.has(pos) ? after.get(pos) : ops[pos])!;
  const replayed = replay(gs, witness.trace, was);
  if (replayed) return replayed;
  const covered = new Set<number>();
  for (const gd of [...gs.done, ...gs.gadgets.values()]) {
    for (const m of gd.members) covered.add(m.pos);
    if (gd.free) continue; // a global phase: its gates may take any angle
    if (gd.settled !== undefined) {
      const k = gd.settled * (Math.PI / 2);
      deviation += rotationDistance(groupAngle(gd, was, true), k) + rotationDistance(groupAngle(gd, now, true), k);
    } else deviation += rotationDistance(groupAngle(gd, now, false), groupAngle(gd, was, false));
  }
  for (const p of after.keys()) if (!covered.has(p)) return `op at position ${p + from} is not a tracked phase gate`;
  // (negated, so that a NaN angle is refused too)
  if (!(deviation <= CERTIFICATE_BUDGET)) return `the changes move the fused angles by ${deviation.toExponential(3)}, above the certificate budget`;
  return deviation;
}
