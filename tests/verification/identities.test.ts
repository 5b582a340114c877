import { describe, expect, it } from 'vitest';
import { barrier, circuit, gate, measure, reset, type Operation } from '../../src/circuits/ir.js';
import { gateMatrix, matMul } from '../../src/verification/gate-matrices.js';
import { pathSumEquivalent } from '../../src/verification/path-sum-equivalence.js';
import { unitaryEquivalent } from '../../src/verification/unitary-equivalence.js';
import { verifyEquivalence } from '../../src/verification/verify-equivalence.js';

const PI = Math.PI;
const g = (name: string, qubits: number[], params: number[] = []): Operation => gate(name, qubits, params);
const c = (n: number, ops: Operation[], clbits = 0) => circuit(n, clbits, ops);

/** The standard 7-T Toffoli (Nielsen & Chuang Fig. 4.9), controls a, b, target t. */
function toffoli(a: number, b: number, t: number, dropT = false): Operation[] {
  const ops = [
    g('h', [t]),
    g('cx', [b, t]),
    g('tdg', [t]),
    g('cx', [a, t]),
    g('t', [t]),
    g('cx', [b, t]),
    g('tdg', [t]),
    g('cx', [a, t]),
    g('t', [b]),
    g('t', [t]),
    g('h', [t]),
    g('cx', [a, b]),
    g('t', [a]),
    g('tdg', [b]),
    g('cx', [a, b]),
  ];
  return dropT ? ops.filter((_, i) => i !== 12) : ops;
}

const EQUIVALENT: [string, number, Operation[], Operation[]][] = [
  ['HH = I', 1, [g('h', [0]), g('h', [0])], []],
  ['HZH = X', 1, [g('h', [0]), g('z', [0]), g('h', [0])], [g('x', [0])]],
  ['HXH = Z', 1, [g('h', [0]), g('x', [0]), g('h', [0])], [g('z', [0])]],
  ['T^8 = I', 1, Array.from({ length: 8 }, () => g('t', [0])), []],
  ['T·T = S', 1, [g('t', [0]), g('t', [0])], [g('s', [0])]],
  ['S·S = Z', 1, [g('s', [0]), g('s', [0])], [g('z', [0])]],
  ['SX·SX = X', 1, [g('sx', [0]), g('sx', [0])], [g('x', [0])]],
  ['Y = i·X·Z (global phase)', 1, [g('y', [0])], [g('z', [0]), g('x', [0])]],
  ['rz(π/4) ≡ T up to phase', 1, [g('rz', [0], [PI / 4])], [g('t', [0])]],
  ['rz(a)·rz(b) = rz(a+b), arbitrary angles', 1, [g('rz', [0], [0.123]), g('rz', [0], [0.456])], [g('rz', [0], [0.579])]],
  ['p(a)·T = p(a+π/4)', 1, [g('p', [0], [0.3]), g('t', [0])], [g('p', [0], [0.3 + PI / 4])]],
  ['H⊗H · CX · H⊗H = reversed CX', 2, [g('h', [0]), g('h', [1]), g('cx', [0, 1]), g('h', [0]), g('h', [1])], [g('cx', [1, 0])]],
  ['CX · X_c · CX = X_c X_t', 2, [g('cx', [0, 1]), g('x', [0]), g('cx', [0, 1])], [g('x', [0]), g('x', [1])]],
  ['CX · Z_t · CX = Z_c Z_t', 2, [g('cx', [0, 1]), g('z', [1]), g('cx', [0, 1])], [g('z', [0]), g('z', [1])]],
  ['CX · X_t · CX = X_t', 2, [g('cx', [0, 1]), g('x', [1]), g('cx', [0, 1])], [g('x', [1])]],
  ['T on the control commutes with CX', 2, [g('t', [0]), g('cx', [0, 1])], [g('cx', [0, 1]), g('t', [0])]],
  ['CZ = H_t · CX · H_t', 2, [g('cz', [0, 1])], [g('h', [1]), g('cx', [0, 1]), g('h', [1])]],
  ['SWAP = three CX', 2, [g('swap', [0, 1])], [g('cx', [0, 1]), g('cx', [1, 0]), g('cx', [0, 1])]],
  ['CCX = 7-T Toffoli', 3, [g('ccx', [0, 1, 2])], toffoli(0, 1, 2)],
  ['CCZ = H_t · CCX · H_t', 3, [g('ccz', [0, 1, 2])], [g('h', [2]), g('ccx', [0, 1, 2]), g('h', [2])]],
  ['Toffoli networks compose', 4, [...toffoli(0, 1, 2), ...toffoli(1, 2, 3), ...toffoli(0, 1, 2)], [g('ccx', [0, 1, 2]), g('ccx', [1, 2, 3]), g('ccx', [0, 1, 2])]],
  ['CSWAP = CX · CCX · CX', 3, [g('cswap', [0, 1, 2])], [g('cx', [2, 1]), g('ccx', [0, 1, 2]), g('cx', [2, 1])]],
  ['CH = S H T CX T† H S†', 2, [g('ch', [0, 1])], [g('s', [1]), g('h', [1]), g('t', [1]), g('cx', [0, 1]), g('tdg', [1]), g('h', [1]), g('sdg', [1])]],
  ['RZZ(θ) = CX · RZ(θ) · CX', 2, [g('rzz', [0, 1], [0.9])], [g('cx', [0, 1]), g('rz', [1], [0.9]), g('cx', [0, 1])]],
  ['CRZ(π/2) = RZ_t(π/4) · CX · RZ_t(−π/4) · CX', 2, [g('crz', [0, 1], [PI / 2])], [g('rz', [1], [PI / 4]), g('cx', [0, 1]), g('rz', [1], [-PI / 4]), g('cx', [0, 1])]],
  ['U3(θ,φ,λ) = RZ(φ)·RY(θ)·RZ(λ)', 1, [g('u3', [0], [0.5, 0.25, -0.75])], [g('rz', [0], [-0.75]), g('ry', [0], [0.5]), g('rz', [0], [0.25])]],
  ['RX(π/2) ≡ SX up to phase', 1, [g('rx', [0], [PI / 2])], [g('sx', [0])]],
];

const NOT_EQUIVALENT: [string, number, Operation[], Operation[]][] = [
  ['off-by-one angle: T vs S', 1, [g('t', [0])], [g('s', [0])]],
  ['off-by-one angle: rz(3π/4) vs rz(π)', 1, [g('rz', [0], [(3 * PI) / 4])], [g('rz', [0], [PI])]],
  ['a slightly wrong arbitrary angle', 1, [g('rz', [0], [0.5])], [g('rz', [0], [0.5 + 1e-6])]],
  ['swapped control and target', 2, [g('cx', [0, 1])], [g('cx', [1, 0])]],
  ['swapped control/target inside a Toffoli network', 3, [g('ccx', [0, 1, 2])], toffoli(0, 2, 1)],
  ['missing T in the Toffoli decomposition', 3, [g('ccx', [0, 1, 2])], toffoli(0, 1, 2, true)],
  ['T vs T†', 1, [g('t', [0])], [g('tdg', [0])]],
  ['H vs X', 1, [g('h', [0])], [g('x', [0])]],
  ['a gate on the wrong qubit', 2, [g('t', [0]), g('h', [1])], [g('t', [1]), g('h', [1])]],
  ['CZ vs CX', 2, [g('cz', [0, 1])], [g('cx', [0, 1])]],
  ['rccx is not ccx', 3, [g('rccx', [0, 1, 2])], [g('ccx', [0, 1, 2])]],
];

describe('known identities', () => {
  for (const [name, n, a, b] of EQUIVALENT) {
    it(`${name}: unitary proves it`, () => {
      const r = unitaryEquivalent(c(n, a), c(n, b));
      expect(r.equivalent, r.reason).toBe(true);
      expect(r.method).toBe('unitary');
      expect(r.stats?.columnsChecked).toBe(1 << n);
    });
    it(`${name}: path sum proves it`, () => {
      const r = pathSumEquivalent(c(n, a), c(n, b));
      expect(r.equivalent, r.reason).toBe(true);
      expect(r.method).toBe('path-sum');
      expect(r.stats?.pathVariablesLeft).toBe(0);
    });
  }
});

describe('known non-equivalences', () => {
  for (const [name, n, a, b] of NOT_EQUIVALENT) {
    it(`${name}: unitary rejects it`, () => {
      const r = unitaryEquivalent(c(n, a), c(n, b));
      expect(r.equivalent).toBe(false);
      expect(r.reason).toMatch(/basis state/);
    });
    it(`${name}: path sum rejects it`, () => {
      const r = pathSumEquivalent(c(n, a), c(n, b));
      expect(r.equivalent).toBe(false);
      expect(r.reason).toMatch(/basis state/);
    });
  }
});

describe('non-unitary operations', () => {
  const bell = [g('h', [0]), g('cx', [0, 1])];
  it('ignores barriers and strips identical terminal measurements', () => {
    const a = c(2, [...bell, barrier([0, 1]), measure(0, 0), measure(1, 1)], 2);
    const b = c(2, [g('h', [0]), barrier([0]), g('cx', [0, 1]), measure(1, 1), measure(0, 0)], 2);
    for (const r of [unitaryEquivalent(a, b), pathSumEquivalent(a, b), verifyEquivalence(a, b, { timeBudgetMs: 5000 })]) {
      expect(r.equivalent).toBe(true);
      expect(r.checked).toMatch(/2 identical terminal measurement/);
    }
  });
  it('rejects different qubit→clbit maps', () => {
    const a = c(2, [...bell, measure(0, 0), measure(1, 1)], 2);
    const b = c(2, [...bell, measure(0, 1), measure(1, 0)], 2);
    const r = verifyEquivalence(a, b, { timeBudgetMs: 5000 });
    expect(r.equivalent).toBe(false);
    expect(r.reason).toMatch(/terminal measurements differ/);
  });
  it('answers unknown for a mid-circuit measurement or reset', () => {
    const mid = c(2, [g('h', [0]), measure(0, 0), g('x', [0])], 1);
    const plain = c(2, [g('h', [0]), g('x', [0]), measure(0, 0)], 1);
    for (const r of [unitaryEquivalent(mid, plain), pathSumEquivalent(mid, plain), verifyEquivalence(mid, plain, { timeBudgetMs: 5000 })]) {
      expect(r.equivalent).toBe('unknown');
      expect(r.reason).toMatch(/mid-circuit measurement/);
    }
    const rs = c(1, [g('h', [0]), reset(0)]);
    expect(verifyEquivalence(rs, c(1, [g('h', [0])]), { timeBudgetMs: 5000 }).reason).toMatch(/mid-circuit reset/);
  });
  it('treats a reset of a fresh qubit as a no-op', () => {
    const r = verifyEquivalence(c(1, [reset(0), g('h', [0])]), c(1, [g('h', [0])]), { timeBudgetMs: 5000 });
    expect(r.equivalent).toBe(true);
  });
  it('rejects different qubit counts', () => {
    const r = verifyEquivalence(c(1, []), c(2, []), { timeBudgetMs: 5000 });
    expect(r.equivalent).toBe(false);
    expect(r.method).toBe('none');
  });
});

describe('robustness (fail closed)', () => {
  it('answers unknown for an unknown gate or a bad qubit index', () => {
    for (const b of [c(1, [g('frobnicate', [0])]), c(1, [g('h', [3])]), c(2, [g('cx', [1, 1])]), c(1, [g('rz', [0], [Number.NaN])])]) {
      const a = c(b.numQubits, []);
      expect(unitaryEquivalent(a, b).equivalent).toBe('unknown');
      expect(pathSumEquivalent(a, b).equivalent).toBe('unknown');
      expect(verifyEquivalence(a, b, { timeBudgetMs: 5000 }).equivalent).toBe('unknown');
    }
  });
  it('answers unknown (not true) when the path sum gets stuck on an identity needing trigonometry', () => {
    // ry(0.2)·rx(0.3) as one u3 with angles read off its matrix: true, but not by the rewrite rules.
    const m = matMul(gateMatrix('ry', [0.2])!, gateMatrix('rx', [0.3])!);
    const arg = (re: number, im: number) => Math.atan2(im, re);
    const a00 = arg(m.re[0]!, m.im[0]!);
    const rot = (k: number) => [Math.cos(-a00) * m.re[k]! - Math.sin(-a00) * m.im[k]!, Math.sin(-a00) * m.re[k]! + Math.cos(-a00) * m.im[k]!] as const;
    const [u00] = rot(0);
    const [u01r, u01i] = rot(1);
    const [u10r, u10i] = rot(2);
    const theta = 2 * Math.atan2(Math.hypot(u10r, u10i), u00);
    const a = c(1, [g('rx', [0], [0.3]), g('ry', [0], [0.2])]);
    const b = c(1, [g('u3', [0], [theta, arg(u10r, u10i), arg(-u01r, -u01i)])]);
    expect(unitaryEquivalent(a, b).equivalent).toBe(true);
    const r = pathSumEquivalent(a, b);
    expect(r.equivalent).toBe('unknown');
    expect(r.reason).toMatch(/stuck/);
    expect(r.stats?.pathVariablesLeft).toBeGreaterThan(0);
    // and a wrong angle there is refuted by evaluating the partly reduced sum
    const wrong = c(1, [g('u3', [0], [theta + 0.01, arg(u10r, u10i), arg(-u01r, -u01i)])]);
    expect(pathSumEquivalent(a, wrong).equivalent).toBe(false);
  });
  it('unitary answers unknown above its qubit limit and when the time budget is spent', () => {
    const layer = (n: number) => Array.from({ length: n }, (_, k) => g('h', [k]));
    const big = unitaryEquivalent(c(13, layer(13)), c(13, layer(13).reverse()));
    expect(big.equivalent).toBe('unknown');
    expect(big.reason).toMatch(/13 qubits is above the unitary limit of 12/);
    const ops = Array.from({ length: 200 }, (_, k) => g('h', [k % 12]));
    const r = unitaryEquivalent(c(12, ops), c(12, [...ops].reverse()), { timeBudgetMs: 0 });
    expect(r.equivalent).toBe('unknown');
    expect(r.reason).toMatch(/time budget/);
  });
});

describe('common prefix and suffix', () => {
  // 20 qubits, identical except a local rewrite on qubits 7 and 9.
  const wide = (middle: Operation[]) =>
    c(20, [
      ...Array.from({ length: 20 }, (_, k) => g('h', [k])),
      ...Array.from({ length: 19 }, (_, k) => g('cx', [k, k + 1])),
      ...middle,
      ...Array.from({ length: 20 }, (_, k) => g('t', [k])),
      ...Array.from({ length: 19 }, (_, k) => g('cz', [k, k + 1])),
    ]);
  it('factors out identical leading and trailing gates and compares only the qubits in between', () => {
    const a = wide([g('cx', [7, 9]), g('z', [9])]);
    const b = wide([g('z', [9]), g('z', [7]), g('cx', [7, 9])]);
    const u = unitaryEquivalent(a, b);
    expect(u.equivalent).toBe(true);
    expect(u.stats).toMatchObject({ qubits: 2, trimmedPrefix: 39, trimmedSuffix: 39 });
    expect(u.checked).toMatch(/factored out/);
    expect(pathSumEquivalent(a, b).equivalent).toBe(true);
    expect(verifyEquivalence(a, b, { timeBudgetMs: 5000 }).method).toBe('unitary');
  });
  it('reports a witness on the original register', () => {
    const a = wide([g('cx', [7, 9])]);
    const b = wide([g('cx', [9, 7])]);
    const u = unitaryEquivalent(a, b);
    expect(u.equivalent).toBe(false);
    expect(u.reason).toMatch(/\|0{10}1000000000⟩|\|0{12}10000000⟩|\|0{10}1010000000⟩/);
    const p = pathSumEquivalent(a, b);
    expect(p.equivalent).toBe(false);
    expect(p.reason).toMatch(/\|[01]{20}⟩/);
  });
  it('does not let identical unknown gates be factored out', () => {
    const a = c(2, [g('frob', [0]), g('h', [1])]);
    const b = c(2, [g('frob', [0]), g('h', [1])]);
    expect(verifyEquivalence(a, b, { timeBudgetMs: 5000 }).equivalent).toBe('unknown');
  });
});

describe('dense circuits (batched columns)', () => {
  const n = 8;
  const layer = (name: string, order: number[], params: number[] = []) => order.map((q) => g(name, [q], params.length ? [params[0]! + q / 10] : []));
  const up = Array.from({ length: n }, (_, k) => k);
  const down = [...up].reverse();
  const body = (order: number[]) => [...layer('h', order), ...layer('rx', order, [0.3]), ...Array.from({ length: n - 1 }, (_, k) => g('cx', [k, k + 1])), ...layer('ry', order, [0.7])];
  const A = c(n, [...body(up), ...layer('t', up)]);
  it('proves a reordering of commuting gates on a dense 8-qubit circuit', () => {
    const r = unitaryEquivalent(A, c(n, [...body(down), ...layer('t', down)]));
    expect(r.equivalent, r.reason).toBe(true);
    expect(r.stats?.columnsChecked).toBe(256);
  });
  it('finds a difference that only shows on later columns', () => {
    // B = A·CZ(6,7): the miter is CZ, trivial on |0…0⟩, wrong first on |11000000⟩ (column 192).
    const r = unitaryEquivalent(A, c(n, [g('cz', [6, 7]), ...body(down), ...layer('t', down)]));
    expect(r.equivalent).toBe(false);
    expect(r.reason).toMatch(/\|11000000⟩/);
    expect(r.stats?.columnsChecked).toBe(193);
  });
});

describe('internal errors fail closed', () => {
  it('turns an exception inside a checker into unknown', () => {
    // A circuit whose ops getter throws stands in for any internal failure.
    const evil = {
      numQubits: 1,
      numClbits: 0,
      metadata: {},
      get ops(): never {
        throw new Error('boom');
      },
    };
    for (const r of [unitaryEquivalent(evil, evil), pathSumEquivalent(evil, evil), verifyEquivalence(evil, evil, { timeBudgetMs: 1000 })]) {
      expect(r.equivalent).toBe('unknown');
      expect(r.reason).toMatch(/internal checker error: boom/);
    }
  });
});
