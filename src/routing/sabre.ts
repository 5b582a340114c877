/**
 * SABRE routing (Li, Ding, Xie, ASPLOS 2019): maps a circuit's qubits onto a device's
 * coupling map, inserting SWAPs so that every two-qubit gate acts on coupled qubits.
 *
 * Layouts are full permutations over the device's P physical qubits: `layout[v] = p` says
 * virtual qubit v sits on physical qubit p. Virtual qubits 0..k-1 are the circuit's qubits,
 * k..P-1 are idle ancillas (they move when a SWAP touches them), so the router's output is
 * exactly "initial permutation, gates, final permutation" — what the equivalence check uses.
 *
 * Input ops have at most two qubits (larger gates are decomposed first); barriers are
 * kept as ordering points. A conditioned gate is routed as its gate (its qubits must be coupled)
 * and keeps its condition; it stays after the measurements writing the bits it reads and before
 * later ones (the DAG has a wire per clbit as well as per qubit). The initial layout is refined by SABRE's reverse traversal:
 * route forward from a connectivity-aware guess, route the reversed circuit from where
 * that ended, and start the real pass from where the reverse one ended.
 */
import type { GateOp, Operation } from '../circuits/ir.js';
import { barrier, conditioned, gate, measure, opQubits, reset } from '../circuits/ir.js';

export type Edge = readonly [number, number];

export interface RoutingResult {
  /** Ops on physical qubits, SWAPs included (as `swap` gates). */
  readonly ops: Operation[];
  /** initialLayout[v] = physical qubit of virtual qubit v before the first op. */
  readonly initialLayout: number[];
  /** finalLayout[v] = physical qubit of virtual qubit v after the last op. */
  readonly finalLayout: number[];
  readonly swaps: number;
}

const EXTENDED_SET_SIZE = 20;
const EXTENDED_WEIGHT = 0.5;
const DECAY_STEP = 0.001;
const DECAY_RESET = 5;

function opQ(op: Operation): readonly number[] {
  return opQubits(op);
}

/** The gate an op applies (a conditioned gate's own), or undefined for measure, reset, barrier. */
function gateOf(op: Operation): GateOp | undefined {
  return op.kind === 'gate' ? op : op.kind === 'conditioned' ? op.gate : undefined;
}

/** The qubit pair of a two-qubit gate (conditioned or not), else undefined. */
function pairOf(op: Operation): readonly [number, number] | undefined {
  const g = gateOf(op);
  return g !== undefined && g.qubits.length === 2 ? (g.qubits as readonly [number, number]) : undefined;
}

/** Wires an op orders on: its qubits (≥ 0) and the clbits it writes or reads (as −1 − clbit). */
function wiresOf(op: Operation): readonly number[] {
  if (op.kind === 'measure') return [op.qubit, -1 - op.clbit];
  if (op.kind === 'conditioned') return [...op.gate.qubits, ...op.condition.clbits.map((c) => -1 - c)];
  return opQ(op);
}

function remap(op: Operation, pos: readonly number[]): Operation {
  switch (op.kind) {
    case 'gate':
      return gate(
        op.name,
        op.qubits.map((q) => pos[q]!),
        op.params,
      );
    case 'barrier':
      return barrier(op.qubits.map((q) => pos[q]!));
    case 'measure':
      return measure(pos[op.qubit]!, op.clbit);
    case 'reset':
      return reset(pos[op.qubit]!);
    case 'conditioned':
      return conditioned(remap(op.gate, pos) as GateOp, op.condition);
  }
}

/** All-pairs shortest path lengths (BFS); Infinity between disconnected qubits. */
export function distanceMatrix(p: number, edges: readonly Edge[]): number[][] {
  const adj: number[][] = Array.from({ length: p }, () => []);
  for (const [a, b] of edges) {
    adj[a]!.push(b);
    adj[b]!.push(a);
  }
  return Array.from({ length: p }, (_, s) => {
    const d = new Array<number>(p).fill(Infinity);
    d[s] = 0;
    const queue = [s];
    for (let i = 0; i < queue.length; i++) {
      const x = queue[i]!;
      for (const y of adj[x]!)
        if (d[y] === Infinity) {
          d[y] = d[x]! + 1;
          queue.push(y);
        }
    }
    return d;
  });
}

/**
 * A first layout: the busiest circuit qubits on a connected patch of the device, grown by
 * BFS from its best-connected qubit; each next circuit qubit goes to the free physical
 * qubit closest to the physical qubits of its already placed partners.
 */
export function initialGuess(ops: readonly Operation[], k: number, p: number, edges: readonly Edge[], dist: number[][]): number[] {
  const weight = new Map<string, number>();
  const degree = new Array<number>(k).fill(0);
  for (const op of ops) {
    const pair = pairOf(op);
    if (pair === undefined) continue;
    const [a, b] = pair;
    const key = a < b ? `${a},${b}` : `${b},${a}`;
    weight.set(key, (weight.get(key) ?? 0) + 1);
    degree[a]!++;
    degree[b]!++;
  }
  const physDeg = new Array<number>(p).fill(0);
  for (const [a, b] of edges) {
    physDeg[a]!++;
    physDeg[b]!++;
  }
  const order = Array.from({ length: k }, (_, v) => v).sort((x, y) => degree[y]! - degree[x]! || x - y);
  const layout = new Array<number>(k).fill(-1);
  const used = new Set<number>();
  const start = Array.from({ length: p }, (_, q) => q).sort((x, y) => physDeg[y]! - physDeg[x]! || x - y)[0] ?? 0;
  for (const v of order) {
    let best = -1;
    let bestScore = Infinity;
    for (let q = 0; q < p; q++) {
      if (used.has(q)) continue;
      let score = 0;
      let partners = 0;
      for (let u = 0; u < k; u++) {
        const w = weight.get(u < v ? `${u},${v}` : `${v},${u}`);
        if (w === undefined || layout[u]! < 0) continue;
        score += w * dist[q]![layout[u]!]!;
        partners++;
      }
      // no placed partner yet: stay near the start so the patch is compact
      if (partners === 0) score = dist[q]![start]! * 1e-3 - physDeg[q]! * 1e-6;
      if (score < bestScore) {
        bestScore = score;
        best = q;
      }
    }
    layout[v] = best;
    used.add(best);
  }
  return layout;
}

interface Node {
  readonly op: Operation;
  readonly succ: number[];
  preds: number;
}

function buildDag(ops: readonly Operation[]): Node[] {
  const nodes: Node[] = ops.map((op) => ({ op, succ: [], preds: 0 }));
  const last = new Map<number, number>();
  ops.forEach((op, i) => {
    const seen = new Set<number>();
    for (const q of wiresOf(op)) {
      const j = last.get(q);
      if (j !== undefined && !seen.has(j)) {
        nodes[j]!.succ.push(i);
        nodes[i]!.preds++;
        seen.add(j);
      }
      last.set(q, i);
    }
  });
  return nodes;
}

/** One SABRE pass from `start` (a full permutation of P). */
export function sabrePass(ops: readonly Operation[], p: number, edges: readonly Edge[], dist: number[][], start: readonly number[]): RoutingResult {
  const pos = [...start]; // virtual → physical
  const at = new Array<number>(p); // physical → virtual
  pos.forEach((q, v) => {
    at[q] = v;
  });
  const nodes = buildDag(ops);
  const remaining = nodes.map((n) => n.preds);
  let front = nodes.map((_, i) => i).filter((i) => remaining[i] === 0);
  const out: Operation[] = [];
  const decay = new Array<number>(p).fill(1);
  const adj: number[][] = Array.from({ length: p }, () => []);
  for (const [a, b] of edges) {
    adj[a]!.push(b);
    adj[b]!.push(a);
  }
  let swaps = 0;
  let sinceReset = 0;
  let stall = 0;

  const executable = (i: number): boolean => {
    const pair = pairOf(nodes[i]!.op);
    if (pair === undefined) return true;
    const [a, b] = pair;
    return dist[pos[a]!]![pos[b]!] === 1;
  };

  while (front.length > 0) {
    const ready = front.filter(executable);
    if (ready.length > 0) {
      const next: number[] = front.filter((i) => !ready.includes(i));
      for (const i of ready) {
        out.push(remap(nodes[i]!.op, pos));
        for (const s of nodes[i]!.succ) if (--remaining[s]! === 0) next.push(s);
      }
      front = next;
      decay.fill(1);
      stall = 0;
      continue;
    }
    // Blocked: every front op is a two-qubit gate on uncoupled qubits. Score the SWAPs next to them.
    const frontPairs = front.map((i) => pairOf(nodes[i]!.op)).filter((q) => q !== undefined);
    const extended: (readonly [number, number])[] = [];
    const visit = [...front];
    const seenExt = new Set<number>(front);
    while (visit.length > 0 && extended.length < EXTENDED_SET_SIZE) {
      const i = visit.shift()!;
      for (const s of nodes[i]!.succ) {
        if (seenExt.has(s)) continue;
        seenExt.add(s);
        const pair = pairOf(nodes[s]!.op);
        if (pair !== undefined) extended.push(pair);
        visit.push(s);
      }
    }
    const cost = (pairs: readonly (readonly [number, number])[], l: readonly number[]): number => pairs.reduce((s, [a, b]) => s + dist[l[a]!]![l[b]!]!, 0);
    const candidates = new Set<string>();
    for (const [a, b] of frontPairs) {
      for (const v of [a, b]) {
        const q = pos[v]!;
        for (const r of adj[q]!) candidates.add(q < r ? `${q},${r}` : `${r},${q}`);
      }
    }
    let best: [number, number] | undefined;
    let bestScore = Infinity;
    // After too many fruitless SWAPs (rare cycles), fall back to a plain step along a shortest path.
    if (stall > 10 * p) {
      const [a, b] = frontPairs[0]!;
      const pa = pos[a]!;
      const pb = pos[b]!;
      const step = adj[pa]!.find((r) => dist[r]![pb]! < dist[pa]![pb]!)!;
      best = [pa, step];
    } else {
      for (const key of [...candidates].sort()) {
        const [q, r] = key.split(',').map(Number) as [number, number];
        const trial = [...pos];
        const vq = at[q]!;
        const vr = at[r]!;
        trial[vq] = r;
        trial[vr] = q;
        const h = cost(frontPairs, trial) / frontPairs.length + (extended.length === 0 ? 0 : (EXTENDED_WEIGHT * cost(extended, trial)) / extended.length);
        const score = Math.max(decay[q]!, decay[r]!) * h;
        if (score < bestScore - 1e-12) {
          bestScore = score;
          best = [q, r];
        }
      }
    }
    if (best === undefined) throw new Error('sabre: no SWAP candidate (disconnected coupling map)');
    const [q, r] = best;
    const vq = at[q]!;
    const vr = at[r]!;
    pos[vq] = r;
    pos[vr] = q;
    at[q] = vr;
    at[r] = vq;
    out.push(gate('swap', [q, r]));
    swaps++;
    stall++;
    decay[q]! += DECAY_STEP;
    decay[r]! += DECAY_STEP;
    if (++sinceReset >= DECAY_RESET) {
      decay.fill(1);
      sinceReset = 0;
    }
  }
  return { ops: out, initialLayout: [...start], finalLayout: pos, swaps };
}

/** Completes a partial layout of k virtual qubits into a permutation of P. */
function complete(partial: readonly number[], p: number): number[] {
  const used = new Set(partial);
  const free = Array.from({ length: p }, (_, q) => q).filter((q) => !used.has(q));
  return [...partial, ...free];
}

/** Routes `ops` (on virtual qubits 0..k-1, at most two qubits each) onto the coupling map of a P-qubit device. */
export function sabreRoute(ops: readonly Operation[], k: number, p: number, edges: readonly Edge[]): RoutingResult {
  if (k > p) throw new RangeError(`sabre: ${k} qubits do not fit on ${p}`);
  const dist = distanceMatrix(p, edges);
  const guess = complete(initialGuess(ops, k, p, edges, dist), p);
  for (const op of ops) {
    const pair = pairOf(op);
    if (pair === undefined) continue;
    const [a, b] = pair;
    if (dist[guess[a]!]![guess[b]!] === Infinity) throw new RangeError('sabre: the coupling map is disconnected between qubits the circuit entangles');
  }
  const reversed = [...ops].reverse();
  const forward = sabrePass(ops, p, edges, dist, guess);
  const backward = sabrePass(reversed, p, edges, dist, forward.finalLayout);
  const refined = sabrePass(ops, p, edges, dist, backward.finalLayout);
  return refined.swaps <= forward.swaps ? refined : forward;
}
