import type { Circuit } from '../circuits/ir.js';
import type { Pair } from './reduced-states.js';

/**
 * Qualitative (structural) coupling: what the circuit's shape alone says, without
 * simulating. It scales to any size the circuit limits allow.
 *
 * Light cones. Each qubit carries the set of *sources* its state at the end can depend on:
 * initially {own initial state}; a gate on several qubits gives each of them the union of
 * their sets (any multi-qubit gate can carry information both ways) — except `swap`, which
 * only exchanges the two sets (it moves states without mixing them); a reset gives the
 * qubit a fresh source of its own (its new |0⟩) and nothing else. Measurements keep the set
 * (a measured qubit is still classically correlated with what it was entangled with).
 * If the sets of a and b are disjoint at the end, ρ_ab = ρ_a ⊗ ρ_b exactly: the pair is
 * neither entangled nor correlated at all. If they intersect, the pair *may* be coupled.
 * This is strictly sharper than connectivity in the interaction graph: it respects order
 * (a—c, then b—d, then c—d leaves a and b uncorrelated).
 */

export interface InteractionEdge {
  readonly qubits: Pair;
  /** Number of multi-qubit gates acting on both qubits (a k-qubit gate counts for each of its pairs). */
  readonly weight: number;
  /** Those gates by name. */
  readonly gates: Readonly<Record<string, number>>;
}

export interface QualitativePair {
  readonly qubits: Pair;
  /** Multi-qubit gates acting on both qubits (the edge weight; 0 when not adjacent). */
  readonly interaction_weight: number;
  /** |cone(a) ∩ cone(b)| / |cone(a) ∪ cone(b)|, 0 when disjoint. */
  readonly light_cone_overlap: number;
  /** The light cones intersect: the pair may be entangled (or correlated) at the end. */
  readonly may_be_entangled: boolean;
  /** Coupling score in [0, 1]; see `couplingScore`. */
  readonly score: number;
}

export interface QualitativeCoupling {
  readonly interaction_graph: { readonly num_qubits: number; readonly edges: readonly InteractionEdge[] };
  /** Connected components of the interaction graph, each sorted, ordered by smallest qubit. Idle qubits are singletons. */
  readonly components: readonly (readonly number[])[];
  /** For each qubit, the initial qubits whose state can influence it at the end (its backward light cone). */
  readonly light_cones: readonly (readonly number[])[];
  readonly pairs: readonly QualitativePair[];
  readonly pairs_may_be_entangled: number;
}

/**
 * Score of a pair: 0 when the light cones are disjoint (provably uncoupled); otherwise the
 * mean of a direct term 1 − 2^(−w) (w = gates acting on both: one gate 0.5, two 0.75, …)
 * and the light-cone overlap. It ranks pairs by structural coupling; it is not a physical
 * quantity (the measured mode gives those).
 */
export function couplingScore(weight: number, overlap: number): number {
  if (overlap === 0) return 0;
  const direct = 1 - 2 ** -weight;
  return Math.round(((direct + overlap) / 2) * 1e6) / 1e6;
}

/** A growable bitset per qubit over source labels. */
class Cones {
  private words: number;
  private sets: Uint32Array[];
  private labels: number;
  constructor(private readonly n: number) {
    this.labels = n;
    this.words = Math.max(1, Math.ceil(n / 32));
    this.sets = Array.from({ length: n }, (_, q) => {
      const s = new Uint32Array(this.words);
      s[q >>> 5] = 1 << (q & 31);
      return s;
    });
  }
  merge(qubits: readonly number[]): void {
    const u = new Uint32Array(this.words);
    for (const q of qubits) {
      const s = this.sets[q]!;
      for (let w = 0; w < this.words; w++) u[w] = (u[w] as number) | (s[w] as number);
    }
    for (const q of qubits) this.sets[q] = Uint32Array.from(u);
  }
  /** A SWAP moves states, it does not mix them: the two cones trade places. */
  exchange(a: number, b: number): void {
    const t = this.sets[a]!;
    this.sets[a] = this.sets[b]!;
    this.sets[b] = t;
  }
  fresh(q: number): void {
    const label = this.labels++;
    if (label >>> 5 >= this.words) {
      this.words *= 2;
      this.sets = this.sets.map((s) => {
        const t = new Uint32Array(this.words);
        t.set(s);
        return t;
      });
    }
    const s = new Uint32Array(this.words);
    s[label >>> 5] = 1 << (label & 31);
    this.sets[q] = s;
  }
  /** [|a ∩ b|, |a ∪ b|] */
  overlap(a: number, b: number): [number, number] {
    const x = this.sets[a]!;
    const y = this.sets[b]!;
    let inter = 0;
    let union = 0;
    for (let w = 0; w < this.words; w++) {
      inter += popcount((x[w] as number) & (y[w] as number));
      union += popcount((x[w] as number) | (y[w] as number));
    }
    return [inter, union];
  }
  /** Initial qubits (labels below n) in the cone of q. */
  initial(q: number): number[] {
    const s = this.sets[q]!;
    const out: number[] = [];
    for (let l = 0; l < this.n; l++) if (((s[l >>> 5] as number) >>> (l & 31)) & 1) out.push(l);
    return out;
  }
}

function popcount(v: number): number {
  let x = (v >>> 0) - ((v >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Every pair a < b of n qubits, in lexicographic order. */
export function allPairs(n: number): Pair[] {
  const out: Pair[] = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) out.push([a, b]);
  return out;
}

export function qualitativeCoupling(c: Circuit, pairs: readonly Pair[]): QualitativeCoupling {
  const n = c.numQubits;
  const cones = new Cones(n);
  const edges = new Map<number, { weight: number; gates: Record<string, number> }>();
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };

  for (const o of c.ops) {
    if (o.kind === 'reset') cones.fresh(o.qubit);
    // a conditioned gate may run: it couples its qubits as the gate would
    const op = o.kind === 'conditioned' ? o.gate : o;
    if (op.kind !== 'gate' || op.qubits.length < 2) continue;
    if (op.name === 'swap') cones.exchange(op.qubits[0]!, op.qubits[1]!);
    else cones.merge(op.qubits);
    const qs = op.qubits;
    for (let i = 0; i < qs.length; i++) {
      for (let j = i + 1; j < qs.length; j++) {
        const a = Math.min(qs[i]!, qs[j]!);
        const b = Math.max(qs[i]!, qs[j]!);
        const key = a * n + b;
        const e = edges.get(key) ?? { weight: 0, gates: {} };
        e.weight += 1;
        e.gates[op.name] = (e.gates[op.name] ?? 0) + 1;
        edges.set(key, e);
        parent[find(a)] = find(b);
      }
    }
  }

  const edgeList: InteractionEdge[] = [...edges.entries()].sort(([x], [y]) => x - y).map(([key, e]) => ({ qubits: [Math.floor(key / n), key % n] as Pair, weight: e.weight, gates: e.gates }));

  const groups = new Map<number, number[]>();
  for (let q = 0; q < n; q++) {
    const r = find(q);
    const g = groups.get(r) ?? [];
    g.push(q);
    groups.set(r, g);
  }
  const components = [...groups.values()].sort((x, y) => x[0]! - y[0]!);

  let mayCount = 0;
  const outPairs = pairs.map(([x, y]): QualitativePair => {
    const a = Math.min(x, y);
    const b = Math.max(x, y);
    const [inter, union] = cones.overlap(a, b);
    const overlap = inter === 0 ? 0 : Math.round((inter / union) * 1e6) / 1e6;
    const weight = edges.get(a * n + b)?.weight ?? 0;
    if (inter > 0) mayCount++;
    return { qubits: [a, b], interaction_weight: weight, light_cone_overlap: overlap, may_be_entangled: inter > 0, score: couplingScore(weight, overlap) };
  });

  return {
    interaction_graph: { num_qubits: n, edges: edgeList },
    components,
    light_cones: Array.from({ length: n }, (_, q) => cones.initial(q)),
    pairs: outPairs,
    pairs_may_be_entangled: mayCount,
  };
}
