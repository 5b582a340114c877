/**
 * Figures of the simulation methods beyond the state vector (issue #36), for bench/sim.ts:
 * stabilizer 1 000 qubits × 100 000 random Clifford gates × 10 000 shots (gate-shots per second) and a
 * 5 000-qubit GHZ × 1 000 shots; MPS 100 qubits, nearest-neighbour depth 20, χ = 64; density matrix
 * 12 qubits, 200 gates with calibrated noise. Each is timed once (they take seconds).
 */
import { circuit, gate, measure, type Operation } from '../../src/circuits/ir.js';
import { noiseFromCalibration } from '../../src/simulation/index.js';
import { simulateDensityMatrix } from '../../src/simulation/density-matrix/simulate-density-matrix.js';
import { simulateMps } from '../../src/simulation/mps/simulate-mps.js';
import { simulateStabilizer } from '../../src/simulation/stabilizer/simulate-stabilizer.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const time = (f: () => void): number => {
  const t = performance.now();
  f();
  return (performance.now() - t) / 1000;
};

export interface MethodFigures {
  readonly stabilizer_n: number;
  readonly stabilizer_gates: number;
  readonly stabilizer_shots: number;
  readonly stabilizer_s: number;
  readonly stabilizer_gate_shots_per_s: number;
  readonly stabilizer_ghz_n: number;
  readonly stabilizer_ghz_shots: number;
  readonly stabilizer_ghz_s: number;
  readonly mps_n: number;
  readonly mps_depth: number;
  readonly mps_max_bond: number;
  /** null when the run did not finish within SIM_MPS_BUDGET_MS (default 60 s). */
  readonly mps_s: number | null;
  readonly mps_bond_reached: number;
  readonly mps_fidelity_lower_bound: number;
  readonly dm_n: number;
  readonly dm_gates: number;
  /** null when the run did not finish within SIM_DM_BUDGET_MS (default 60 s). */
  readonly dm_s: number | null;
}

export function methodFigures(env: Readonly<Record<string, string | undefined>>): MethodFigures {
  const N = Number(env['SIM_STAB_N'] ?? 1000);
  const GATES = Number(env['SIM_STAB_GATES'] ?? 100_000);
  const SHOTS = Number(env['SIM_STAB_SHOTS'] ?? 10_000);
  const rnd = lcg(36);
  const ops: Operation[] = [];
  const one = ['h', 's', 'sdg', 'x', 'y', 'z', 'sx'];
  const two = ['cx', 'cz', 'swap', 'cy'];
  for (let i = 0; i < GATES; i++) {
    const a = Math.floor(rnd() * N);
    let b = Math.floor(rnd() * (N - 1));
    if (b >= a) b++;
    if (rnd() < 0.5) ops.push(gate(one[Math.floor(rnd() * one.length)]!, [a]));
    else ops.push(gate(two[Math.floor(rnd() * two.length)]!, [a, b]));
  }
  const measured = Array.from({ length: N }, (_, q) => measure(q, q));
  const stab = circuit(N, N, [...ops, ...measured]);
  const tStab = time(() => void simulateStabilizer(stab, { shots: SHOTS, seed: 1 }));

  const G = Number(env['SIM_GHZ_N'] ?? 5000);
  const ghz: Operation[] = [gate('h', [0])];
  for (let q = 1; q < G; q++) ghz.push(gate('cx', [q - 1, q]));
  const ghzC = circuit(G, G, [...ghz, ...Array.from({ length: G }, (_, q) => measure(q, q))]);
  const tGhz = time(() => void simulateStabilizer(ghzC, { shots: 1000, seed: 1 }));

  const M = 100;
  const DEPTH = Number(env['SIM_MPS_DEPTH'] ?? 20);
  const mpsOps: Operation[] = [];
  for (let layer = 0; layer < DEPTH; layer++) {
    for (let q = 0; q < M; q++) mpsOps.push(gate('u3', [q], [rnd() * 3, rnd() * 3, rnd() * 3]));
    for (let q = layer % 2; q + 1 < M; q += 2) mpsOps.push(gate('cx', [q, q + 1]));
  }
  let mpsBond = 0;
  let mpsBound = 1;
  let tMps: number | null = null;
  try {
    tMps = time(() => {
      const r = simulateMps(circuit(M, 4, [...mpsOps, measure(0, 0), measure(33, 1), measure(66, 2), measure(99, 3)]), {
        shots: 1000,
        seed: 1,
        maxBondDimension: 64,
        timeBudgetMs: Number(env['SIM_MPS_BUDGET_MS'] ?? 60_000),
      });
      mpsBond = r.truncation.maxBondDimensionReached;
      mpsBound = r.truncation.fidelityLowerBound;
    });
  } catch {
    tMps = null; // over its budget: reported as null (the target is 10 s)
  }

  const D = 12;
  const dmOps: Operation[] = [];
  for (let i = 0; i < 200; i++) {
    const a = Math.floor(rnd() * D);
    if (i % 2 === 0) dmOps.push(gate('u3', [a], [rnd() * 3, rnd() * 3, rnd() * 3]));
    else dmOps.push(gate('cx', [a, (a + 1) % D]));
  }
  const cal = { t1_us: 80, t2_us: 60, gate_time_1q_ns: 35, gate_time_2q_ns: 300, error_1q: 0.001, error_2q: 0.01, readout_error: 0.02 };
  let tDm: number | null = null;
  try {
    tDm = time(
      () =>
        void simulateDensityMatrix(circuit(D, D, [...dmOps, ...Array.from({ length: D }, (_, q) => measure(q, q))]), {
          shots: 1000,
          seed: 1,
          noise: noiseFromCalibration(cal),
          timeBudgetMs: Number(env['SIM_DM_BUDGET_MS'] ?? 60_000),
        }),
    );
  } catch {
    tDm = null; // over its budget (the target is 10 s)
  }

  return {
    stabilizer_n: N,
    stabilizer_gates: GATES,
    stabilizer_shots: SHOTS,
    stabilizer_s: Number(tStab.toFixed(3)),
    stabilizer_gate_shots_per_s: Math.round((GATES * SHOTS) / tStab),
    stabilizer_ghz_n: G,
    stabilizer_ghz_shots: 1000,
    stabilizer_ghz_s: Number(tGhz.toFixed(3)),
    mps_n: M,
    mps_depth: DEPTH,
    mps_max_bond: 64,
    mps_s: tMps === null ? null : Number(tMps.toFixed(3)),
    mps_bond_reached: mpsBond,
    mps_fidelity_lower_bound: Number(mpsBound.toPrecision(4)),
    dm_n: D,
    dm_gates: 200,
    dm_s: tDm === null ? null : Number(tDm.toFixed(3)),
  };
}
