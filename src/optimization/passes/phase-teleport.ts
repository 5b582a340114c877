import { opQubits, type GateOp } from '../../circuits/ir.js';
import { PHASE_TELEPORT_RULE } from '../../verification/certificate-types.js';
import { addAngles, CERTIFICATE_BUDGET, quarterTurns, rotationDistance } from '../../verification/numeric-policy.js';
import { phaseGate, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { CliffordPathSum, type FusedGroup } from './clifford-path-sum.js';

interface Tracked {
  idx: number;
  angle: number;
}

/** Σ sign·angle over a group's members in member order (as the checker sums it), plus its quarter turns if asked. */
function groupSum(gr: FusedGroup, angle: (gate: number) => number, withQuarters: boolean): number {
  let a = withQuarters ? gr.quarters * (Math.PI / 2) : 0;
  for (const m of gr.members) a = addAngles(a, m.sign * angle(m.gate));
  return a;
}

/**
 * Phase teleportation (Kissinger & van de Wetering 2020, "Reducing the number of non-Clifford
 * gates in quantum circuits"), in path-sum form: the circuit's Clifford skeleton is reduced
 * with every non-Clifford phase gate kept symbolic as a gadget (clifford-path-sum.ts); gates
 * whose gadgets end up acting on the same parity are fused — their summed angle stays at the
 * first of them, the others are removed. Gates only disappear or change angle: the Clifford
 * skeleton is untouched, nothing is re-extracted. One in-place step per call, carrying the
 * reduction trace, which the certificate replayer re-runs with its own path sum
 * (src/verification/phase-teleport-check.ts) — so the step is proven by replay alone, not
 * by a whole-circuit check. Returns the number of gates changed or removed.
 */
export function teleportPhases(rec: Recorder): number {
  const n = rec.ops.reduce((m, o) => Math.max(m, ...opQubits(o)), 0) + 1;
  const ps = new CliffordPathSum(n);
  const tracked: Tracked[] = [];
  // the rounding of taking near-Clifford angles as Clifford, as the checker counts it (before and after)
  let deviation = 0;
  let open = false;
  rec.ops.forEach((op, i) => {
    if (op.kind !== 'gate') {
      // measurements, resets and barriers close a segment (as for phase-polynomial merging):
      // every wire restarts from a fresh variable, so nothing is fused across them
      if (open) for (let q = 0; q < n; q++) ps.opaque(q);
      open = false;
      return;
    }
    open = true;
    const a = phaseOf(op);
    if (a !== undefined) {
      const k = quarterTurns(a);
      if (k !== undefined) {
        deviation += 2 * rotationDistance(a, k * (Math.PI / 2));
        ps.quarter(op.qubits[0]!, k);
      } else {
        ps.track(op.qubits[0]!, a);
        tracked.push({ idx: i, angle: a });
      }
      return;
    }
    const [p, q] = op.qubits as [number, number];
    // a gate on repeated qubits is malformed: no structure is assumed for it (as in the checker)
    const name = new Set(op.qubits).size === op.qubits.length ? op.name : '';
    switch (name) {
      case 'h':
        ps.hadamard(p);
        return;
      case 'x':
        ps.not(p);
        return;
      case 'y': // Y ∝ X·Z
        ps.quarter(p, 2);
        ps.not(p);
        return;
      case 'cx':
        ps.cnot(p, q);
        return;
      case 'cz':
        ps.cz(p, q);
        return;
      case 'swap':
        ps.swap(p, q);
        return;
      case 'id':
        return;
      default:
        for (const r of op.qubits) ps.opaque(r);
    }
  });
  if (tracked.length === 0) return 0;
  const groups = ps.teleport(rec.stopped);
  if (rec.stopped()) return 0;

  const changes = new Map<number, GateOp | null>();
  for (const gr of groups) {
    // the first member in circuit order keeps the group's angle (with its own sign), the others go
    const sorted = [...gr.members].sort((x, y) => tracked[x.gate]!.idx - tracked[y.gate]!.idx);
    const keep = sorted[0]!;
    const at = tracked[keep.gate]!.idx;
    const was = (gate: number) => tracked[gate]!.angle;
    // a free group is a global phase: all its gates go; otherwise one gate carries the members' sum
    const merged = gr.free ? null : (phaseGate((rec.ops[at] as GateOp).qubits[0]!, keep.sign * groupSum(gr, was, false), 'named', rec.tol) ?? null);
    if (sorted.length > 1 || merged === null || phaseOf(merged) !== tracked[keep.gate]!.angle) changes.set(at, merged);
    for (const m of sorted.slice(1)) changes.set(tracked[m.gate]!.idx, null);
    if (gr.free) continue;
    const now = (gate: number) => (gate !== keep.gate || !merged ? 0 : phaseOf(merged)!);
    if (gr.settled !== undefined) {
      const k = gr.settled * (Math.PI / 2);
      deviation += rotationDistance(groupSum(gr, was, true), k) + rotationDistance(groupSum(gr, now, true), k);
    } else deviation += rotationDistance(groupSum(gr, now, false), groupSum(gr, was, false));
  }
  // every step stays well inside the certificate's budget (the recorder's tolerance rule: half of it)
  if (changes.size === 0 || rec.deviation + deviation > CERTIFICATE_BUDGET / 2) return 0;
  const positions = [...changes.keys()].sort((x, y) => x - y);
  rec.rewrite(
    PHASE_TELEPORT_RULE,
    positions,
    positions.map((p) => changes.get(p)!),
    { trace: ps.trace },
    deviation,
  );
  return positions.length;
}
