import type { GateOp } from '../../circuits/ir.js';
import { PHASE_TELEPORT_RULE } from '../../verification/certificate-types.js';
import { g, normAngle, phaseOf } from '../gate-info.js';
import type { Recorder } from '../recorder.js';
import { CliffordPathSum, cliffordQuarters } from './clifford-path-sum.js';

interface Tracked { idx: number; angle: number }

const NAMED: Readonly<Record<number, string>> = { 1: 't', 2: 's', 4: 'z', [-4]: 'z', [-2]: 'sdg', [-1]: 'tdg' };

/**
 * The gate for a fused angle, or null for none. Rounds only within 1e-12 (a named Clifford+T
 * gate, or nothing), far inside the checker's 1e-9, so the replay never meets a doubtful case.
 */
function fusedGate(q: number, angle: number): GateOp | null {
  const a = normAngle(angle);
  const k = a / (Math.PI / 4);
  const r = Math.round(k);
  if (Math.abs(k - r) < 1e-12) {
    if (r === 0) return null;
    const name = NAMED[r];
    return name ? g(name, [q]) : g('rz', [q], [(r * Math.PI) / 4]);
  }
  return g('rz', [q], [a]);
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
  const n = rec.ops.reduce((m, o) => Math.max(m, o.kind === 'gate' || o.kind === 'barrier' ? Math.max(...o.qubits) : o.qubit), 0) + 1;
  const ps = new CliffordPathSum(n);
  const tracked: Tracked[] = [];
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
      const k = cliffordQuarters(a);
      if (k !== undefined) ps.quarter(op.qubits[0]!, k);
      else {
        ps.track(op.qubits[0]!, a);
        tracked.push({ idx: i, angle: a });
      }
      return;
    }
    const [p, q] = op.qubits as [number, number];
    switch (op.name) {
      case 'h': ps.hadamard(p); return;
      case 'x': ps.not(p); return;
      case 'y': ps.quarter(p, 2); ps.not(p); return; // Y ∝ X·Z
      case 'cx': ps.cnot(p, q); return;
      case 'cz': ps.cz(p, q); return;
      case 'swap': ps.swap(p, q); return;
      case 'id': return;
      default: for (const r of op.qubits) ps.opaque(r);
    }
  });
  if (tracked.length === 0) return 0;
  const groups = ps.teleport(rec.stopped);
  if (rec.stopped()) return 0;

  const changes = new Map<number, GateOp | null>();
  for (const { angle, members } of groups) {
    // the first member in circuit order keeps the group's angle (with its own sign)
    const sorted = [...members].sort((x, y) => tracked[x.gate]!.idx - tracked[y.gate]!.idx);
    const keep = sorted[0]!;
    const at = tracked[keep.gate]!.idx;
    const merged = fusedGate((rec.ops[at] as GateOp).qubits[0]!, keep.sign * angle);
    if (sorted.length > 1 || merged === null || phaseOf(merged) !== tracked[keep.gate]!.angle) changes.set(at, merged);
    for (const m of sorted.slice(1)) changes.set(tracked[m.gate]!.idx, null);
  }
  if (changes.size === 0) return 0;
  const positions = [...changes.keys()].sort((x, y) => x - y);
  rec.rewrite(PHASE_TELEPORT_RULE, positions, positions.map((p) => changes.get(p)!), { trace: ps.trace });
  return positions.length;
}
