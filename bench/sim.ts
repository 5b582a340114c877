/**
 * bench:sim — the state-vector simulator against (a) a plain per-gate Float64Array
 * reference kernel written here, (b) the `quantum-circuit` npm package at n = 12 and 16,
 * and (c) memory bandwidth (a large TypedArray copy), all measured in the same run.
 * Circuits: random layers of H on every qubit, RZ(random) on every qubit, CX ladder.
 * amp_updates_per_s = (original gates × 2^n) / seconds. Prints a table, then one JSON line.
 * Env: SIM_LAYERS (default 6), SIM_MAX_N (default 24), SIM_SKIP_WORKERS=1.
 * Sweep figure: a parameterized circuit of SIM_SWEEP_GATES gates (default 200) on SIM_SWEEP_N qubits
 * (default 20) swept over SIM_SWEEP_POINTS bindings (default 20) in one runWorkload (counts and an
 * exact ⟨Z…Z⟩ per point), as points/s beside single runs/s of the same circuit bound once.
 */
import { methodFigures } from './lib/methods.js';
import QuantumCircuit from 'quantum-circuit';
import { circuit, gate } from '../src/circuits/ir.js';
import type { Circuit, Operation } from '../src/circuits/ir.js';
import { finalState, runWorkload, simulate } from '../src/simulation/index.js';
import { compileBinder } from '../src/circuits/parameters.js';
import { parseCircuitInput } from '../src/circuits/wire-format.js';
import { fuseSingleQubitRuns } from '../src/simulation/compile.js';
import { gateMatrix } from '../src/simulation/gate-matrices.js';
import { planUnitary, PlanRunner } from '../src/simulation/plan.js';
import { TwoThreadRunner } from './lib/parallel-runner.js';

const LAYERS = Number(process.env.SIM_LAYERS ?? 6);
const MAX_N = Number(process.env.SIM_MAX_N ?? 24);
const NS = [16, 20, 24].filter((n) => n <= MAX_N);
const rows: string[][] = [];
const row = (...cells: (string | number)[]): void => void rows.push(cells.map(String));
const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3));

type G = [string, number[], number[]];
function layered(n: number, layers: number, seed: number): G[] {
  let s = seed;
  const rnd = (): number => (s = (s * 16807) % 2147483647) / 2147483647;
  const gs: G[] = [];
  for (let l = 0; l < layers; l++) {
    for (let q = 0; q < n; q++) gs.push(['h', [q], []]);
    for (let q = 0; q < n; q++) gs.push(['rz', [q], [rnd() * 2 * Math.PI]]);
    for (let q = 0; q + 1 < n; q++) gs.push(['cx', [q, q + 1], []]);
  }
  return gs;
}
const toCircuit = (n: number, gs: G[]): Circuit =>
  circuit(
    n,
    0,
    gs.map(([name, qs, ps]): Operation => gate(name, qs, ps)),
  );

function best(reps: number, f: () => void): number {
  let b = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    f();
    b = Math.min(b, performance.now() - t0);
  }
  return b / 1000;
}

// (a) Reference: one full pass over the state per gate, separate re/im arrays.
function referenceRun(n: number, gs: G[], re: Float64Array, im: Float64Array): void {
  const dim = 2 ** n;
  re.fill(0);
  im.fill(0);
  re[0] = 1;
  for (const [name, qs, ps] of gs) {
    if (name === 'cx') {
      const c = 1 << qs[0]!;
      const t = 1 << qs[1]!;
      const lo = Math.min(c, t);
      const hi = Math.max(c, t);
      for (let a = 0; a < dim; a += hi << 1)
        for (let b = a; b < a + hi; b += lo << 1)
          for (let i = b; i < b + lo; i++) {
            const x = i | c; // control set, target clear (both bits were clear in i)
            const y = x | t;
            const r0 = re[x]!,
              i0 = im[x]!;
            re[x] = re[y]!;
            im[x] = im[y]!;
            re[y] = r0;
            im[y] = i0;
          }
      continue;
    }
    const m = gateMatrix(name, ps)!;
    const [ar, br, cr, dr] = m.re as unknown as [number, number, number, number];
    const [ai, bi, ci, di] = m.im as unknown as [number, number, number, number];
    const s = 1 << qs[0]!;
    for (let i0 = 0; i0 < dim; i0 += s << 1)
      for (let i = i0; i < i0 + s; i++) {
        const j = i + s;
        const xr = re[i]!,
          xi = im[i]!,
          yr = re[j]!,
          yi = im[j]!;
        re[i] = ar * xr - ai * xi + br * yr - bi * yi;
        im[i] = ar * xi + ai * xr + br * yi + bi * yr;
        re[j] = cr * xr - ci * xi + dr * yr - di * yi;
        im[j] = cr * xi + ci * xr + dr * yi + di * yr;
      }
  }
}

// Layout experiment: the same reference kernel on one interleaved [re, im, re, im, …] array.
function referenceInterleaved(n: number, gs: G[], z: Float64Array): void {
  const dim = 2 ** n;
  z.fill(0);
  z[0] = 1;
  for (const [name, qs, ps] of gs) {
    if (name === 'cx') {
      const c = 1 << qs[0]!;
      const t = 1 << qs[1]!;
      const lo = Math.min(c, t);
      const hi = Math.max(c, t);
      for (let a = 0; a < dim; a += hi << 1)
        for (let b = a; b < a + hi; b += lo << 1)
          for (let i = b; i < b + lo; i++) {
            const x = 2 * (i | c);
            const y = 2 * (i | c | t);
            const r0 = z[x]!,
              i0 = z[x + 1]!;
            z[x] = z[y]!;
            z[x + 1] = z[y + 1]!;
            z[y] = r0;
            z[y + 1] = i0;
          }
      continue;
    }
    const m = gateMatrix(name, ps)!;
    const [ar, br, cr, dr] = m.re as unknown as [number, number, number, number];
    const [ai, bi, ci, di] = m.im as unknown as [number, number, number, number];
    const s = 1 << qs[0]!;
    for (let i0 = 0; i0 < dim; i0 += s << 1)
      for (let i = i0; i < i0 + s; i++) {
        const p = 2 * i,
          q = 2 * (i + s);
        const xr = z[p]!,
          xi = z[p + 1]!,
          yr = z[q]!,
          yi = z[q + 1]!;
        z[p] = ar * xr - ai * xi + br * yr - bi * yi;
        z[p + 1] = ar * xi + ai * xr + br * yi + bi * yr;
        z[q] = cr * xr - ci * xi + dr * yr - di * yi;
        z[q + 1] = cr * xi + ci * xr + dr * yi + di * yr;
      }
  }
}

// (b) quantum-circuit: one layer at n = 16 (it is slow), all layers at n = 12.
function qcRate(n: number, gs: G[]): number {
  const qc = new QuantumCircuit(n);
  gs.forEach(([name, qs, ps], col) => {
    if (name === 'rz') qc.addGate('rz', col, qs[0]!, { params: { phi: ps[0]! } });
    else qc.addGate(name, col, qs.length === 1 ? qs[0]! : qs);
  });
  const t = best(2, () => qc.run()); // best of 2, like ours (best of 5 after a warm-up)
  return (gs.length * 2 ** n) / t;
}

// (c) Memory bandwidth: copy of a 256 MiB Float64Array (bytes read + bytes written per second).
const COPY_N = 2 ** 25;
const copySrc = new Float64Array(COPY_N).fill(1.5);
const copyDst = new Float64Array(COPY_N);
const copyOnce = (): void => copyDst.set(copySrc);
const COPY_BYTES = 2 * 8 * COPY_N;

let bw = COPY_BYTES / best(5, copyOnce);

const rates = new Map<number, { fused: number; ref: number; tLight: number; tGather: number; passBytes: number }>();
/** Passes are formatted at the end, against the best copy bandwidth of the whole run. */
const passRow = (label: string, t: number, bytes: number, note = ''): void => void rows.push([label, fmt(t * 1000) + ' ms', `${fmt(bytes / t / 1e9)} GB/s`, `\u0000${t}:${bytes}:${note}`]);
for (const n of NS) {
  const gs = layered(n, LAYERS, 1234 + n);
  const c = toCircuit(n, gs);
  const amps = 2 ** n;
  const reps = n >= 24 ? 2 : 3;
  finalState(c); // warm-up (JIT)
  const tFused = best(reps, () => void finalState(c));
  const fused = (gs.length * amps) / tFused;
  // Reference over whole layers (1 layer at n ≥ 24 to bound the run; its per-gate rate is flat).
  const refLayers = n >= 24 ? 1 : Math.min(LAYERS, 3);
  const refGs = gs.slice(0, refLayers * (3 * n - 1));
  const re = new Float64Array(amps);
  const im = new Float64Array(amps);
  const tRef = best(reps, () => referenceRun(n, refGs, re, im));
  const ref = (refGs.length * amps) / tRef;
  // Fused passes: time of the gate work divided by the number of blocks (each block = one pass).
  // The plan finalState builds: one in-place block up to 16 qubits, blocks of 14 above.
  const plan = planUnitary(fuseSingleQubitRuns(gs.map(([nm, qs, ps]) => ({ qubits: qs, mat: gateMatrix(nm, ps)!, gates: 1 }))), n, n <= 16 ? n : 14);
  // Passes run on a state held in the runner's wasm memory, as in finalState / simulate.
  const light = planUnitary([{ qubits: [n - 1], mat: gateMatrix('rz', [0.3])!, gates: 1 }], n);
  const gathered = planUnitary(
    [0, n - 1].map((q) => ({ qubits: [q], mat: gateMatrix('rz', [0.3])!, gates: 1 })),
    n,
  );
  const runner = new PlanRunner();
  const scratch = Math.max(...[plan, light, gathered].map((p) => PlanRunner.bufferBytes(p)));
  const st = runner.ws.allocState(amps, scratch)!;
  st.re[0] = 1;
  const tPlan = best(reps, () => runner.run(plan, st.re, st.im, () => {}));
  const passBytes = 2 * 16 * amps; // the state (16 B per amplitude) read once and written once
  // One fused pass: the engine's pass over the state for the lightest block, one gate on the
  // top qubit (executed in place, streaming), so the figure is data movement, not arithmetic.
  // The copy is re-measured alternately with the pass (same machine load); the best copy
  // of the whole run is the baseline, so load during the first copy cannot flatter the pass.
  let tLight = Infinity;
  for (let r = 0; r < reps + 3; r++) {
    bw = Math.max(bw, COPY_BYTES / best(1, copyOnce));
    tLight = Math.min(
      tLight,
      best(1, () => runner.run(light, st.re, st.im, () => {})),
    );
  }
  // The same with two gates (qubits 0 and n−1): a block that goes through gather, apply, scatter.
  const tGather = best(reps + 2, () => runner.run(gathered, st.re, st.im, () => {}));
  rates.set(n, { fused, ref, tLight: light.direct ? NaN : tLight, tGather: light.direct ? NaN : tGather, passBytes });
  row(`n=${n} fused engine (${gs.length} gates, ${plan.blocks.length} blocks of ${plan.width})`, fmt(tFused * 1000) + ' ms', `${fmt(fused / 1e9)} G amp-upd/s`, `${fmt(fused / ref)}× ref`);
  row(`n=${n} reference per-gate kernel (${refGs.length} gates)`, fmt(tRef * 1000) + ' ms', `${fmt(ref / 1e9)} G amp-upd/s`, '1.00× ref');
  if (!plan.direct) {
    passRow(`n=${n} one fused pass: block of 1 gate (rz on q${n - 1}), in place`, tLight, passBytes);
    passRow(`n=${n} one fused pass: block of 2 gates (rz on q0, q${n - 1}), gather + apply + scatter`, tGather, passBytes);
    passRow(`n=${n} average pass of this circuit (${fmt(plan.gates / plan.blocks.length)} gates each)`, tPlan / plan.blocks.length, passBytes, ' (compute-bound)');
  }
  if (n === 20) {
    const z = new Float64Array(2 * amps);
    const layer = gs.slice(0, 3 * n - 1);
    const tSep = best(3, () => referenceRun(n, layer, re, im));
    const tInt = best(3, () => referenceInterleaved(n, layer, z));
    row('n=20 layout: separate re/im vs interleaved (reference, 1 layer)', `${fmt(tSep * 1000)} / ${fmt(tInt * 1000)} ms`, '', `interleaved ${fmt(tSep / tInt)}× separate`);
  }
  if (n >= 20 && process.env.SIM_SKIP_WORKERS !== '1') {
    const two = await TwoThreadRunner.start(plan);
    two.re[0] = 1;
    two.run(); // warm-up
    const tTwo = best(reps, () => two.run());
    await two.stop();
    row(`n=${n} worker_threads experiment (main + 1 worker, same plan)`, `${fmt(tTwo * 1000)} ms`, `vs ${fmt(tPlan * 1000)} ms 1 thread`, `${fmt(tPlan / tTwo)}× speedup`);
  }
  if (n === 16 || n === 20) {
    const cm = circuit(n, n, [...c.ops, ...Array.from({ length: n }, (_, q) => ({ kind: 'measure', qubit: q, clbit: q }) as const)]);
    const tSim = best(2, () => void simulate(cm, { shots: 1024, seed: 1 }));
    row(`n=${n} simulate() incl. 1024-shot sampling and exact probabilities`, fmt(tSim * 1000) + ' ms', `${fmt((gs.length * amps) / tSim / 1e9)} G amp-upd/s`, '');
  }
}

// quantum-circuit comparisons at n = 12 and 16 (our rate measured on the same circuit).
const qcRatio = new Map<number, number>();
for (const n of [12, 16]) {
  const gs = layered(n, n === 16 ? 1 : LAYERS, 99 + n);
  const c = toCircuit(n, gs);
  finalState(c);
  const ours = (gs.length * 2 ** n) / best(5, () => void finalState(c));
  const theirs = qcRate(n, gs);
  qcRatio.set(n, ours / theirs);
  row(`n=${n} quantum-circuit package (${gs.length} gates)`, '', `${fmt(theirs / 1e6)} M amp-upd/s`, `ours ${fmt(ours / theirs)}× faster`);
}

// Sweep: one parameterized circuit, many bindings in one run (src/simulation/workload.ts).
const SWEEP_N = Number(process.env.SIM_SWEEP_N ?? 20);
const SWEEP_GATES = Number(process.env.SIM_SWEEP_GATES ?? 200);
const SWEEP_POINTS = Number(process.env.SIM_SWEEP_POINTS ?? 20);
function sweepCircuit(n: number, total: number): Circuit {
  const gates: { op: string; qubits: number[]; params?: string[] }[] = [];
  for (let l = 0; gates.length < total; l++) {
    for (let q = 0; q < n && gates.length < total; q++) gates.push({ op: 'ry', qubits: [q], params: [`t${q % 8}+${l}*pi/7`] });
    for (let q = 0; q + 1 < n && gates.length < total; q++) gates.push({ op: 'cx', qubits: [q, q + 1] });
    for (let q = 0; q < n && gates.length < total; q++) gates.push({ op: 'rz', qubits: [q], params: [`2*t${(q + l) % 8}-pi/4`] });
  }
  const measurements = Array.from({ length: n }, (_, q) => ({ qubit: q, clbit: q }));
  const r = parseCircuitInput(
    { schema: '0.2', num_qubits: n, num_clbits: n, parameters: Array.from({ length: 8 }, (_, i) => `t${i}`), gates, measurements },
    { maxQubits: 30, maxGates: 100_000, maxDepth: 100_000 },
    { allowParameters: true },
  );
  if (!r.ok) throw new Error(`sweep circuit: ${r.errors[0]!.message}`);
  return r.circuit;
}
const sweepC = sweepCircuit(SWEEP_N, SWEEP_GATES);
const sweepPoints = Array.from({ length: SWEEP_POINTS }, (_, k) => Array.from({ length: 8 }, (_, i) => Math.sin(k + i)));
const observable = [{ pauli: 'Z'.repeat(SWEEP_N), coeff: 1 }];
const singleBound = compileBinder(sweepC).bind(Float64Array.from(sweepPoints[0]!));
simulate(singleBound, { shots: 1024, seed: 1 });
const tSingle = best(3, () => void simulate(singleBound, { shots: 1024, seed: 1, observables: observable }));
const tSweep = best(2, () => void runWorkload(sweepC, { shots: 1024, seed: 1 }, { resultTypes: ['counts', 'expectation'], observables: observable, points: sweepPoints }));
const sweepRate = SWEEP_POINTS / tSweep;
const singleRate = 1 / tSingle;
row(
  `n=${SWEEP_N} sweep of ${SWEEP_POINTS} points, ${SWEEP_GATES} gates, 1024 shots + ⟨Z…Z⟩ each (one run)`,
  fmt(tSweep * 1000) + ' ms',
  `${fmt(sweepRate)} points/s`,
  `single run ${fmt(singleRate)}/s`,
);

rows.unshift(['memory copy bandwidth (TypedArray.set, 256 MiB; best of the run)', '', `${fmt(bw / 1e9)} GB/s`, '']);
for (const r of rows)
  if (r[3]!.startsWith('\u0000')) {
    const [t, bytes, note] = r[3]!.slice(1).split(':') as [string, string, string];
    r[3] = `${fmt((Number(bytes) / Number(t) / bw) * 100)}% of copy${note}`;
  }
// Methods beyond the state vector (issue #36): measured once each, after the state-vector figures.
const mf = methodFigures(process.env);
row(
  `stabilizer ${mf.stabilizer_n} q × ${mf.stabilizer_gates} Clifford × ${mf.stabilizer_shots} shots`,
  `${fmt(mf.stabilizer_s * 1000)} ms`,
  `${fmt(mf.stabilizer_gate_shots_per_s / 1e9)} G gate-shots/s`,
  `target ≤ 2 s: ${mf.stabilizer_s <= 2 ? 'MET' : 'NOT MET'}`,
);
row(`stabilizer GHZ ${mf.stabilizer_ghz_n} q × ${mf.stabilizer_ghz_shots} shots`, `${fmt(mf.stabilizer_ghz_s * 1000)} ms`, '', '');
row(
  `MPS ${mf.mps_n} q NN depth ${mf.mps_depth} χ=${mf.mps_max_bond}`,
  mf.mps_s === null ? 'over budget' : `${fmt(mf.mps_s * 1000)} ms`,
  `bond ${mf.mps_bond_reached}, F ≥ ${mf.mps_fidelity_lower_bound}`,
  `target ≤ 10 s: ${mf.mps_s !== null && mf.mps_s <= 10 ? 'MET' : 'NOT MET'}`,
);
row(
  `density matrix ${mf.dm_n} q × ${mf.dm_gates} noisy gates`,
  mf.dm_s === null ? 'over budget' : `${fmt(mf.dm_s * 1000)} ms`,
  '',
  `target ≤ 10 s: ${mf.dm_s !== null && mf.dm_s <= 10 ? 'MET' : 'NOT MET'}`,
);

const w = Math.max(...rows.map((r) => r[0]!.length));
console.log('measurement'.padEnd(w) + '  ' + 'time'.padStart(16) + '  ' + 'rate'.padStart(22) + '  ' + 'relative');
for (const r of rows) console.log(r[0]!.padEnd(w) + '  ' + r[1]!.padStart(16) + '  ' + r[2]!.padStart(22) + '  ' + r[3]);

const top = NS[NS.length - 1]!;
const at = rates.get(top)!;
const passFraction = at.passBytes / at.tLight / bw; // NaN when n ≤ block width (no passes)
// Reported beside it: the in-place one-gate pass is the best case; a block that must be gathered
// and scattered is the weaker figure, and readers should see both.
const gatheredFraction = at.passBytes / at.tGather / bw;
const vsRef = at.fused / at.ref;
const vsQc = qcRatio.get(16)!;
console.log(
  `targets at n=${top}: fusion ≥ 2.0× reference: ${vsRef >= 2 ? 'MET' : 'NOT MET'} (${vsRef.toFixed(2)}×); ` +
    `≥ 1000× quantum-circuit at n=16: ${vsQc >= 1000 ? 'MET' : 'NOT MET'} (${vsQc.toFixed(0)}×); ` +
    `fused pass ≥ 70% of copy bandwidth: ${passFraction >= 0.7 ? 'MET' : 'NOT MET'} (${(passFraction * 100).toFixed(1)}%)`,
);
console.log(
  JSON.stringify({
    bench: 'sim',
    n: top,
    amp_updates_per_s: Math.round(at.fused),
    vs_reference_kernel: Number(vsRef.toFixed(3)),
    vs_quantum_circuit_n16: Number(vsQc.toFixed(1)),
    fused_pass_fraction_of_bandwidth: Number(passFraction.toFixed(3)),
    gathered_pass_fraction_of_bandwidth: Number(gatheredFraction.toFixed(3)),
    sweep_n: SWEEP_N,
    sweep_gates: SWEEP_GATES,
    sweep_points: SWEEP_POINTS,
    sweep_points_per_s: Number(sweepRate.toFixed(2)),
    single_runs_per_s: Number(singleRate.toFixed(2)),
    ...mf,
  }),
);
