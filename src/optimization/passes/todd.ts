/**
 * T-count reduction of a phase polynomial by its signature tensor (TODD: Heyfron & Campbell 2018,
 * "An efficient quantum compiler that reduces T count", Quantum Sci. Technol. 4 015004).
 *
 * The odd-coefficient (T-like) parities of a CNOT+phase region are the columns of a matrix A over
 * F₂ (one row per variable). Two such matrices whose signature tensors S_αβγ = Σ_j A_αj A_βj A_γj
 * (mod 2) agree give diagonal unitaries that differ by a Clifford (S and CZ terms only), so the
 * T-count is the number of columns and any A' with the same tensor and fewer columns saves T gates.
 * TODD's step: for a vector z (here A_a ⊕ A_b for two columns, or one column A_a) find y such that
 * A + z·yᵀ (with z appended when |y| is odd) keeps the tensor; then columns a and b become equal and
 * cancel (two columns fewer, or one), or the appended z cancels A_a. The condition on y is linear
 * (the χ matrix, built in `chi` below, in the basis where z is a unit vector); it is slightly weaker
 * than the paper's (the component of A·y along z is left free), which the tests check against the
 * tensor itself. Among reductions of one size an optional score picks the cheapest to place (the
 * idea of comparing candidates is FastTODD's: Vandaele, Martiel, Perdrix & Vuillot 2024, "Lower
 * T-count with faster algorithms"). The caller recomputes the Clifford difference and proves the
 * result (the `resynth-phase-polynomial` rule).
 *
 * Rows are held as bit vectors over the columns (Uint32 words): the element-wise product of two
 * rows is then their AND, and the null space comes from one elimination per pair of columns.
 */

type Row = Uint32Array;

const bit = (r: Row, j: number) => (r[j >>> 5]! >>> (j & 31)) & 1;

/** The columns as a multiset mod 2: zero columns and equal pairs go (2 T gates on one parity are an S). */
export function cancelPairs(cols: readonly bigint[]): bigint[] {
  const odd = new Set<bigint>();
  for (const c of cols) {
    if (c === 0n) continue;
    if (odd.has(c)) odd.delete(c);
    else odd.add(c);
  }
  return [...odd];
}

/** A basis of the row space of the matrix whose columns are `cols` (rows as bit vectors over the columns). */
function rowBasis(cols: readonly bigint[], words: number): Row[] {
  const byVar = new Map<number, Row>();
  cols.forEach((c, j) => {
    let v = 0;
    for (let x = c; x !== 0n; x >>= 1n, v++) {
      if ((x & 1n) === 0n) continue;
      let r = byVar.get(v);
      if (!r) byVar.set(v, (r = new Uint32Array(words)));
      r[j >>> 5]! |= 1 << (j & 31);
    }
  });
  return reduce([...byVar.values()], cols.length).rows;
}

/** Row echelon form in place (rows kept are independent); pivots[i] is row i's pivot column. */
function reduce(rows: Row[], m: number): { rows: Row[]; pivots: number[] } {
  const out: Row[] = [];
  const pivots: number[] = [];
  const words = rows[0]?.length ?? 0;
  let rest = rows;
  for (let j = 0; j < m && rest.length; j++) {
    const k = rest.findIndex((r) => bit(r, j));
    if (k < 0) continue;
    const p = rest[k]!;
    const next: Row[] = [];
    for (let i = 0; i < rest.length; i++) {
      if (i === k) continue;
      const r = rest[i]!;
      if (bit(r, j)) for (let w = 0; w < words; w++) r[w]! ^= p[w]!;
      // a row that became zero carries no condition
      if (r.some((x) => x !== 0)) next.push(r);
    }
    // reduced form: clear column j in the pivot rows already found too
    for (const q of out) if (bit(q, j)) for (let w = 0; w < words; w++) q[w]! ^= p[w]!;
    out.push(p);
    pivots.push(j);
    rest = next;
  }
  return { rows: out, pivots };
}

const and = (a: Row, b: Row) => a.map((x, w) => x & b[w]!);

/** A basis of the null space of `rows` (m columns), each vector as the list of its non-zero positions. */
function nullBasis(rows: Row[], m: number): number[][] {
  const { rows: ech, pivots } = reduce(rows, m);
  const isPivot = new Set(pivots);
  const out: number[][] = [];
  for (let f = 0; f < m; f++) {
    if (isPivot.has(f)) continue;
    const y = [f];
    ech.forEach((r, i) => {
      if (bit(r, f)) y.push(pivots[i]!);
    });
    out.push(y);
  }
  return out;
}

/**
 * A combination of `basis` whose features (a few bits each, from `feature`) XOR to `want`, preferring
 * one of even weight when `preferEven`; undefined when none reaches it.
 */
function combine(basis: readonly number[][], feature: (y: readonly number[]) => number, want: number, preferEven: boolean): number[] | undefined {
  // elimination over the feature bits (plus the weight parity when an even vector is preferred)
  const key = (y: readonly number[]) => feature(y) | (preferEven ? (y.length & 1) << 8 : 0);
  const pivots: { k: number; y: Set<number> }[] = [];
  const xor = (s: Set<number>, y: Iterable<number>) => {
    for (const j of y) if (!s.delete(j)) s.add(j);
  };
  const solve = (target: number): Set<number> | undefined => {
    let t = target;
    const acc = new Set<number>();
    for (const p of pivots) {
      const hi = 31 - Math.clz32(p.k);
      if ((t >>> hi) & 1) {
        t ^= p.k;
        xor(acc, p.y);
      }
    }
    return t === 0 ? acc : undefined;
  };
  for (const y0 of basis) {
    let k = key(y0);
    const y = new Set(y0);
    for (const p of pivots) {
      const hi = 31 - Math.clz32(p.k);
      if ((k >>> hi) & 1) {
        k ^= p.k;
        xor(y, p.y);
      }
    }
    if (k === 0) continue;
    pivots.push({ k, y });
    pivots.sort((u, v) => v.k - u.k);
  }
  const found = (preferEven && solve(want)) || solve(want | (preferEven ? 1 << 8 : 0));
  return found ? [...found] : undefined;
}

export interface ToddOptions {
  /** Checked between pairs: the reduction stops with what it has. */
  stopped?: () => boolean;
  /** The most pairs (a, b) tried in all (the work is cubic in the columns per pair). */
  maxPairs?: number;
  /**
   * The cost of a candidate column list (lower is better): each round then compares up to
   * `candidates` reductions of the same size and keeps the cheapest, instead of the first found.
   */
  score?: (cols: readonly bigint[]) => number;
  candidates?: number;
}

/**
 * A list of parities with the same signature tensor as `cols` and as few columns as TODD finds
 * (never more than `cancelPairs(cols)`).
 */
export function toddReduce(cols: readonly bigint[], opts: ToddOptions = {}): bigint[] {
  let cur = cancelPairs(cols);
  let budget = opts.maxPairs ?? 200_000;
  for (;;) {
    const m = cur.length;
    if (m < 2) return cur;
    const words = (m + 31) >>> 5;
    const R = rowBasis(cur, words);
    const r = R.length;
    /**
     * The rows of χ(A, z) (z in basis coordinates), whose null space holds the admissible y. In the
     * basis x'_β = x_β ⊕ z_β·x_α₀ (β ≠ α₀), where z is the unit vector of α₀, the tensor of A + z·yᵀ
     * differs from A's exactly by Σ_j y_j A'_βj (β ≠ α₀), Σ_j y_j A'_βj A'_γj (β < γ, both ≠ α₀) and |y|
     * (which the appended z absorbs): so these rows must vanish on y, and nothing else is needed.
     */
    const chi = (z: number[]): Row[] => {
      const a0 = z.indexOf(1);
      const T: Row[] = [];
      for (let be = 0; be < r; be++) {
        if (be === a0) continue;
        const row = R[be]!.slice();
        if (z[be]) for (let w = 0; w < words; w++) row[w]! ^= R[a0]![w]!;
        T.push(row);
      }
      const rows: Row[] = T.map((x) => x.slice());
      for (let be = 0; be < T.length; be++)
        for (let ga = be + 1; ga < T.length; ga++) {
          const row = and(T[be]!, T[ga]!);
          if (row.some((x) => x !== 0)) rows.push(row);
        }
      return rows;
    };
    const step = (zc: bigint, y: readonly number[] | undefined): bigint[] | undefined => {
      if (!y) return undefined;
      const flip = new Set(y);
      const moved = cur.map((c, j) => (flip.has(j) ? c ^ zc : c));
      if (y.length % 2 === 1) moved.push(zc);
      const reduced = cancelPairs(moved);
      return reduced.length < m ? reduced : undefined;
    };
    // the best candidate so far (fewest columns, then lowest score) and how many were compared
    let best: { cols: bigint[]; cost: number } | undefined;
    let compared = 0;
    const wanted = opts.score ? (opts.candidates ?? 24) : 1;
    const offer = (cols: bigint[] | undefined): boolean => {
      if (!cols) return false;
      const cost = opts.score ? opts.score(cols) : 0;
      if (!best || cols.length < best.cols.length || (cols.length === best.cols.length && cost < best.cost)) best = { cols, cost };
      return ++compared >= wanted;
    };
    search: for (let a = 0; a < m; a++) {
      // z = A_a: y_a = 0 and |y| odd, so the appended z cancels column a (one column fewer)
      {
        if (--budget < 0 || opts.stopped?.()) return best?.cols ?? cur;
        const z = R.map((row) => bit(row, a));
        const has = (y: readonly number[], j: number) => (y.includes(j) ? 1 : 0);
        if (
          offer(
            step(
              cur[a]!,
              combine(nullBasis(chi(z), m), (y) => has(y, a) | ((y.length & 1) << 1), 2, false),
            ),
          )
        )
          break search;
      }
      // z = A_a ⊕ A_b: y_a ≠ y_b, so columns a and b become equal and cancel
      for (let b = a + 1; b < m; b++) {
        if (--budget < 0 || opts.stopped?.()) return best?.cols ?? cur;
        const z = R.map((row) => bit(row, a) ^ bit(row, b));
        if (!z.includes(1)) continue;
        const y = combine(nullBasis(chi(z), m), (v) => (v.includes(a) ? 1 : 0) ^ (v.includes(b) ? 1 : 0), 1, true);
        if (offer(step(cur[a]! ^ cur[b]!, y))) break search;
      }
    }
    if (!best) return cur;
    cur = best.cols;
  }
}

/**
 * The signature tensor of odd parities, as the set of its non-zero entries (α ≤ β ≤ γ, keyed
 * "α,β,γ"): what TODD keeps, so tests can check it directly.
 */
export function signatureTensor(cols: readonly bigint[]): Set<string> {
  const s = new Set<string>();
  for (const c of cols) {
    const v: number[] = [];
    for (let x = c, i = 0; x !== 0n; x >>= 1n, i++) if (x & 1n) v.push(i);
    for (let i = 0; i < v.length; i++)
      for (let j = i; j < v.length; j++)
        for (let k = j; k < v.length; k++) {
          const key = `${v[i]},${v[j]},${v[k]}`;
          if (!s.delete(key)) s.add(key);
        }
  }
  return s;
}
