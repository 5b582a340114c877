import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { circuit, gate, type GateOp } from '../../src/circuits/ir.js';
import { pathSumEquivalent } from '../../src/verification/path-sum-equivalence.js';
import { unitaryEquivalent } from '../../src/verification/unitary-equivalence.js';

/**
 * Path sums agree with the whole-unitary check on random Clifford+T circuits of ≤ 8 qubits:
 * equivalent pairs come from applying random true identities, inequivalent ones from a
 * single-gate mutation (replacing g by a gate not proportional to it, or deleting it, can
 * never give an equivalent circuit).
 */
const ONE = ['h', 'x', 'z', 's', 'sdg', 't', 'tdg'] as const;
const INVERSE: Record<string, string> = { h: 'h', x: 'x', z: 'z', s: 'sdg', sdg: 's', t: 'tdg', tdg: 't', cx: 'cx', cz: 'cz', ccx: 'ccx', swap: 'swap' };

const arbCircuit = fc
  .integer({ min: 2, max: 8 })
  .chain((n) =>
    fc
      .array(
        fc.oneof(
          fc.record({ name: fc.constantFrom(...ONE), qubits: fc.tuple(fc.nat(n - 1)).map((q) => [...q]) }),
          fc.record({ name: fc.constantFrom('cx', 'cz', 'swap'), qubits: fc.uniqueArray(fc.nat(n - 1), { minLength: 2, maxLength: 2 }) }),
          ...(n >= 3 ? [fc.record({ name: fc.constant('ccx'), qubits: fc.uniqueArray(fc.nat(n - 1), { minLength: 3, maxLength: 3 }) })] : []),
        ),
        { minLength: 1, maxLength: 40 },
      )
      .map((gs) => ({ n, ops: gs.map((x) => gate(x.name, x.qubits)) })),
  );

const toffoli = (a: number, b: number, t: number): GateOp[] =>
  (
    [
      ['h', [t]],
      ['cx', [b, t]],
      ['tdg', [t]],
      ['cx', [a, t]],
      ['t', [t]],
      ['cx', [b, t]],
      ['tdg', [t]],
      ['cx', [a, t]],
      ['t', [b]],
      ['t', [t]],
      ['h', [t]],
      ['cx', [a, b]],
      ['t', [a]],
      ['tdg', [b]],
      ['cx', [a, b]],
    ] as const
  ).map(([name, q]) => gate(name, [...q]));

/** Rewrites op i by a true identity (or inserts a cancelling pair / swaps commuting neighbours). */
function rewrite(ops: readonly GateOp[], n: number, i: number, kind: number, q: number): GateOp[] {
  const out = [...ops];
  const at = ops.length === 0 ? 0 : i % ops.length;
  const op = ops[at];
  const [a = 0, b = 0, c = 0] = op?.qubits ?? [];
  const replace = (gs: GateOp[]): GateOp[] => (out.splice(at, 1, ...gs), out);
  switch (kind % 4) {
    case 0: {
      const name = ONE[q % ONE.length]!;
      const w = q % n;
      out.splice(i % (ops.length + 1), 0, gate(name, [w]), gate(INVERSE[name]!, [w]));
      return out;
    }
    case 1: {
      if (!op) return out;
      const next = ops[at + 1];
      if (next && !next.qubits.some((x) => op.qubits.includes(x))) out.splice(at, 2, next, op);
      return out;
    }
    default:
      if (!op) return out;
      switch (op.name) {
        case 'z':
          return replace([gate('h', [a]), gate('x', [a]), gate('h', [a])]);
        case 'x':
          return replace([gate('h', [a]), gate('z', [a]), gate('h', [a])]);
        case 's':
          return replace([gate('t', [a]), gate('t', [a])]);
        case 'sdg':
          return replace([gate('tdg', [a]), gate('tdg', [a])]);
        case 't':
          return replace([gate('tdg', [a]), gate('s', [a])]);
        case 'tdg':
          return replace([gate('t', [a]), gate('sdg', [a])]);
        case 'h':
          return replace([gate('s', [a]), gate('h', [a]), gate('s', [a]), gate('h', [a]), gate('s', [a])]);
        case 'cz':
          return replace([gate('h', [b]), gate('cx', [a, b]), gate('h', [b])]);
        case 'cx':
          return replace([gate('h', [a]), gate('h', [b]), gate('cx', [b, a]), gate('h', [a]), gate('h', [b])]);
        case 'swap':
          return replace([gate('cx', [a, b]), gate('cx', [b, a]), gate('cx', [a, b])]);
        case 'ccx':
          return replace(toffoli(a, b, c));
        default:
          return out;
      }
  }
}

const SWAP_NAME: Record<string, string> = { t: 'tdg', tdg: 't', s: 'sdg', sdg: 's', h: 'x', x: 'h', z: 's', cz: 'cx', swap: 'cx' };

/** One gate replaced by a non-proportional gate, or deleted. */
function mutate(ops: readonly GateOp[], i: number, del: boolean): GateOp[] {
  const at = i % ops.length;
  const op = ops[at]!;
  const out = [...ops];
  if (del) {
    out.splice(at, 1);
    return out;
  }
  const q = op.qubits;
  if (op.name === 'cx') out[at] = gate('cx', [q[1]!, q[0]!]);
  else if (op.name === 'ccx') out[at] = gate('ccx', [q[0]!, q[2]!, q[1]!]);
  else out[at] = gate(SWAP_NAME[op.name]!, [...q]);
  return out;
}

const tally = { eqProved: 0, eqUnknown: 0, neqRefuted: 0, neqUnknown: 0 };

describe('path sums against whole unitaries on random Clifford+T circuits', () => {
  afterAll(() => {
    // The proofs must not be vacuous: nearly every case is decided by the path sum.
    expect(tally.eqProved).toBeGreaterThan(0.9 * (tally.eqProved + tally.eqUnknown));
    expect(tally.neqRefuted).toBeGreaterThan(0.9 * (tally.neqRefuted + tally.neqUnknown));
  });

  it('equivalent by construction: unitary proves it, path sum proves it or says unknown, never false', () => {
    fc.assert(
      fc.property(arbCircuit, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 12 }), ({ n, ops }, rws) => {
        let b = [...ops];
        for (const [i, k, q] of rws) b = rewrite(b, n, i, k, q);
        const A = circuit(n, 0, ops);
        const B = circuit(n, 0, b);
        const u = unitaryEquivalent(A, B);
        expect(u.equivalent, u.reason).toBe(true);
        const p = pathSumEquivalent(A, B);
        expect(p.equivalent).not.toBe(false);
        if (p.equivalent === true) tally.eqProved++;
        else tally.eqUnknown++;
      }),
      { numRuns: 150, seed: 20240601 },
    );
  });

  it('one mutated gate: unitary refutes it, path sum refutes it or says unknown, never true', () => {
    fc.assert(
      fc.property(arbCircuit, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 6 }), fc.nat(), fc.boolean(), ({ n, ops }, rws, i, del) => {
        const b = mutate(ops, i, del);
        let b2 = b;
        for (const [j, k, q] of rws) b2 = rewrite(b2, n, j, k, q);
        const A = circuit(n, 0, ops);
        const B = circuit(n, 0, b2);
        const u = unitaryEquivalent(A, B);
        expect(u.equivalent, u.reason).toBe(false);
        const p = pathSumEquivalent(A, B);
        expect(p.equivalent).not.toBe(true);
        if (p.equivalent === false) tally.neqRefuted++;
        else tally.neqUnknown++;
      }),
      { numRuns: 150, seed: 20240602 },
    );
  });
});

describe('path sums against whole unitaries with arbitrary rz angles', () => {
  const arbRz = fc
    .integer({ min: 2, max: 6 })
    .chain((n) =>
      fc
        .array(
          fc.oneof(
            fc.record({ name: fc.constantFrom('h', 't', 's', 'x'), qubits: fc.tuple(fc.nat(n - 1)).map((q) => [...q]), params: fc.constant([] as number[]) }),
            fc.record({ name: fc.constant('rz'), qubits: fc.tuple(fc.nat(n - 1)).map((q) => [...q]), params: fc.tuple(fc.double({ min: -3, max: 3, noNaN: true })).map((p) => [...p]) }),
            fc.record({ name: fc.constant('cx'), qubits: fc.uniqueArray(fc.nat(n - 1), { minLength: 2, maxLength: 2 }), params: fc.constant([] as number[]) }),
          ),
          { minLength: 1, maxLength: 30 },
        )
        .map((gs) => ({ n, ops: gs.map((x) => gate(x.name, x.qubits, x.params)) })),
    );

  it('splitting rotations is proven; a shifted angle is never proven', () => {
    let proved = 0;
    let runs = 0;
    fc.assert(
      fc.property(arbRz, fc.nat(), fc.double({ min: 0.05, max: 1, noNaN: true }), ({ n, ops }, i, delta) => {
        const split = ops.flatMap((o) => (o.name === 'rz' ? [gate('rz', o.qubits, [o.params[0]! / 3]), gate('rz', o.qubits, [(2 * o.params[0]!) / 3])] : [o]));
        const A = circuit(n, 0, ops);
        const p = pathSumEquivalent(A, circuit(n, 0, split));
        expect(unitaryEquivalent(A, circuit(n, 0, split)).equivalent).toBe(true);
        expect(p.equivalent).not.toBe(false);
        runs++;
        if (p.equivalent === true) proved++;
        const rzAt = ops.findIndex((o, k) => o.name === 'rz' && k >= i % ops.length);
        if (rzAt < 0) return;
        const shifted = [...ops];
        shifted[rzAt] = gate('rz', ops[rzAt]!.qubits, [ops[rzAt]!.params[0]! + delta]);
        const B = circuit(n, 0, shifted);
        expect(unitaryEquivalent(A, B).equivalent).toBe(false);
        expect(pathSumEquivalent(A, B).equivalent).not.toBe(true);
      }),
      { numRuns: 100, seed: 20240603 },
    );
    // symbolic real phases do the work: nearly all splits are proven, not left unknown
    expect(proved).toBeGreaterThan(0.9 * runs);
  });
});

describe('change of summation variables', () => {
  /** A fixed pseudo-random Clifford+T circuit and a rewrite of it (cx → H-conjugated reversed cx, t → t†·s, H·H inserted). */
  function pair(seed: number, n: number, count: number, hFrac: number) {
    const rnd = (k: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % k;
    };
    const one = ['x', 'z', 's', 'sdg', 't', 'tdg'];
    const ops: GateOp[] = [];
    for (let i = 0; i < count; i++) {
      const r = rnd(10);
      const q = rnd(n);
      let t = rnd(n);
      if (t === q) t = (q + 1) % n;
      if (r < 1 && rnd(hFrac) === 0) ops.push(gate('h', [q]));
      else if (r < 5) ops.push(gate(one[rnd(one.length)]!, [q]));
      else ops.push(gate('cx', [q, t]));
    }
    const out: GateOp[] = [];
    for (const o of ops) {
      const r = rnd(10);
      const [a = 0, b = 0] = o.qubits;
      if (o.name === 'cx' && r < 3) out.push(gate('h', [a]), gate('h', [b]), gate('cx', [b, a]), gate('h', [a]), gate('h', [b]));
      else if (o.name === 't' && r < 5) out.push(gate('tdg', o.qubits), gate('s', o.qubits));
      else out.push(o);
      if (r === 9) {
        const q = rnd(n);
        out.push(gate('h', [q]), gate('h', [q]));
      }
    }
    return [circuit(n, 0, ops), circuit(n, 0, out)] as const;
  }

  it('proves a pair whose reduction leaves every path variable in the outputs until variables are changed', () => {
    const [a, b] = pair(15, 6, 120, 4);
    expect(unitaryEquivalent(a, b).equivalent).toBe(true);
    const r = pathSumEquivalent(a, b);
    expect(r.equivalent, r.reason).toBe(true);
    expect(r.stats?.rules?.changes).toBeGreaterThan(0);
  });
});
