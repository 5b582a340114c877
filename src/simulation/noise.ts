/**
 * Noise for emulated hardware, from a device calibration record. Every gate is followed
 * by (1) thermal relaxation of each of its qubits for the gate's duration (amplitude
 * damping from T1, pure dephasing from T2) and (2) a depolarizing channel whose
 * strength makes the gate's total average infidelity equal the calibrated gate error
 * (the relaxation part is subtracted first, as Qiskit Aer's device models do).
 * Measurements get a classical readout flip. Channels are simulated by quantum
 * trajectories (see simulate.ts). Idle qubits get no noise (documented in docs/simulator.md).
 */

/** Per-qubit values: one number for every qubit, or an array indexed by qubit. */
export type PerQubit = number | readonly number[];

/** A device calibration record (times in µs / ns, errors as probabilities in [0, 1]). */
export interface CalibrationRecord {
  /** Energy relaxation time T1 in microseconds. */
  readonly t1_us: PerQubit;
  /** Dephasing time T2 in microseconds (physically T2 ≤ 2·T1; larger values are clamped). */
  readonly t2_us: PerQubit;
  /** Duration of a single-qubit gate in nanoseconds. */
  readonly gate_time_1q_ns: number;
  /** Duration of a two-qubit (or larger) gate in nanoseconds. */
  readonly gate_time_2q_ns: number;
  /** Average gate infidelity of single-qubit gates (randomized-benchmarking error per gate). */
  readonly error_1q: PerQubit;
  /** Average gate infidelity of two-qubit gates: one number, or per pair keyed "a-b" (either order). */
  readonly error_2q: number | Readonly<Record<string, number>>;
  /** Probability that a measured bit is reported flipped. A pair is [P(read 1 | 0), P(read 0 | 1)]. */
  readonly readout_error: PerQubit | readonly (readonly [number, number])[];
}

/** A channel placed after a gate. `p` meanings by kind are documented per field. */
export type NoiseChannel =
  /** ρ → (1-p)ρ + p·I/2^k on the k (1 or 2) qubits. */
  | { readonly kind: 'depolarizing'; readonly qubits: readonly number[]; readonly p: number }
  /** Amplitude damping with decay probability gamma. */
  | { readonly kind: 'amplitude_damping'; readonly qubit: number; readonly gamma: number }
  /** Phase damping with parameter lambda (off-diagonals scale by sqrt(1-lambda)). */
  | { readonly kind: 'phase_damping'; readonly qubit: number; readonly lambda: number };

export interface NoiseModel {
  /** Channels to apply right after a gate with this name on these qubits, in order. */
  afterGate(name: string, qubits: readonly number[]): readonly NoiseChannel[];
  /** [P(report 1 | true 0), P(report 0 | true 1)] for a measurement of `qubit`. */
  readout(qubit: number): readonly [number, number];
}

const at = (v: PerQubit, q: number): number => (typeof v === 'number' ? v : (v[q] ?? v[v.length - 1] ?? 0));
const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);

/** Relaxation over `tNs` for T1, T2 in µs: amplitude damping gamma and phase damping lambda. */
export function relaxationParams(t1Us: number, t2Us: number, tNs: number): { gamma: number; lambda: number } {
  const t = tNs / 1000;
  if (!(t > 0)) return { gamma: 0, lambda: 0 };
  const t1 = t1Us > 0 ? t1Us : Infinity;
  const t2 = Math.min(t2Us > 0 ? t2Us : Infinity, 2 * t1);
  const gamma = 1 - Math.exp(-t / t1);
  // Coherence decays as exp(-t/T2) = sqrt(1-gamma)·sqrt(1-lambda)  ⇒  1-lambda = exp(-2t/T2 + t/T1).
  const lambda = clamp01(1 - Math.exp((-2 * t) / t2 + t / t1));
  return { gamma, lambda };
}

/** Entanglement fidelity of amplitude damping (gamma) followed by phase damping (lambda) on one qubit. */
function relaxationEntanglementFidelity(gamma: number, lambda: number): number {
  // Fe = Σ|Tr K|²/4 over the Kraus products; non-zero traces: diag(1, √(1-γ)√(1-λ)) and diag(0, √λ√(1-γ)).
  const a = 1 + Math.sqrt(1 - gamma) * Math.sqrt(1 - lambda);
  return (a * a + lambda * (1 - gamma)) / 4;
}

/**
 * Depolarizing p (ρ → (1-p)ρ + p I/d) that, composed with a channel of entanglement
 * fidelity fe, gives average gate infidelity r. Average fidelity F = (d·Fe + 1)/(d + 1).
 */
export function depolarizingForError(r: number, d: number, fe = 1): number {
  const feTarget = ((d + 1) * (1 - r) - 1) / d;
  const denom = fe - 1 / (d * d);
  if (denom <= 0) return 0;
  return clamp01((fe - feTarget) / denom);
}

function pairError(e: CalibrationRecord['error_2q'], a: number, b: number): number {
  if (typeof e === 'number') return e;
  const v = e[`${a}-${b}`] ?? e[`${b}-${a}`];
  if (v !== undefined) return v;
  const all = Object.values(e);
  return all.length === 0 ? 0 : all.reduce((x, y) => x + y, 0) / all.length;
}

/** The noise model of an emulated device. */
export function noiseFromCalibration(cal: CalibrationRecord): NoiseModel {
  const cache = new Map<string, readonly NoiseChannel[]>();
  const relax = (q: number, tNs: number): { gamma: number; lambda: number } => relaxationParams(at(cal.t1_us, q), at(cal.t2_us, q), tNs);
  const build = (name: string, qubits: readonly number[]): readonly NoiseChannel[] => {
    if (qubits.length === 0) return [];
    const out: NoiseChannel[] = [];
    const twoQ = qubits.length >= 2;
    const tNs = twoQ ? cal.gate_time_2q_ns : cal.gate_time_1q_ns;
    const rel = qubits.map((q) => relax(q, tNs));
    rel.forEach((r, j) => {
      if (r.gamma > 0) out.push({ kind: 'amplitude_damping', qubit: qubits[j]!, gamma: r.gamma });
      if (r.lambda > 0) out.push({ kind: 'phase_damping', qubit: qubits[j]!, lambda: r.lambda });
    });
    if (name === 'id') return out; // an identity is an idle slot: relaxation only
    if (!twoQ) {
      const q = qubits[0]!;
      const p = depolarizingForError(clamp01(at(cal.error_1q, q)), 2, relaxationEntanglementFidelity(rel[0]!.gamma, rel[0]!.lambda));
      if (p > 0) out.push({ kind: 'depolarizing', qubits: [q], p });
      return out;
    }
    // Two or more qubits: a two-qubit depolarizing channel on each consecutive pair of the gate's qubits.
    for (let j = 0; j + 1 < qubits.length; j++) {
      const a = qubits[j]!;
      const b = qubits[j + 1]!;
      const fe = relaxationEntanglementFidelity(rel[j]!.gamma, rel[j]!.lambda) * relaxationEntanglementFidelity(rel[j + 1]!.gamma, rel[j + 1]!.lambda);
      const p = depolarizingForError(clamp01(pairError(cal.error_2q, a, b)), 4, fe);
      if (p > 0) out.push({ kind: 'depolarizing', qubits: [a, b], p });
    }
    return out;
  };
  return {
    afterGate(name, qubits) {
      const key = `${name}|${qubits.join(',')}`;
      let v = cache.get(key);
      if (v === undefined) {
        v = build(name, qubits);
        cache.set(key, v);
      }
      return v;
    },
    readout(q) {
      const r = cal.readout_error;
      if (typeof r === 'number') return [clamp01(r), clamp01(r)];
      const v = r[q] ?? r[r.length - 1];
      if (v === undefined) return [0, 0];
      return typeof v === 'number' ? [clamp01(v), clamp01(v)] : [clamp01(v[0]), clamp01(v[1])];
    },
  };
}

/** A model with only the given channels after every gate (for tests and custom devices). */
/** The channels of a custom model: after every gate on each of its qubits, and readout [P(1|0), P(0|1)]. */
export interface CustomNoiseSpec {
  readonly depolarizing1q?: number;
  readonly depolarizing2q?: number;
  readonly amplitudeDamping?: number;
  readonly phaseDamping?: number;
  readonly readout?: readonly [number, number];
}

export function customNoise(opts: CustomNoiseSpec): NoiseModel {
  return {
    afterGate(_name, qubits) {
      const out: NoiseChannel[] = [];
      for (const q of qubits) {
        if ((opts.amplitudeDamping ?? 0) > 0) out.push({ kind: 'amplitude_damping', qubit: q, gamma: opts.amplitudeDamping! });
        if ((opts.phaseDamping ?? 0) > 0) out.push({ kind: 'phase_damping', qubit: q, lambda: opts.phaseDamping! });
      }
      if (qubits.length === 1 && (opts.depolarizing1q ?? 0) > 0) out.push({ kind: 'depolarizing', qubits, p: opts.depolarizing1q! });
      if (qubits.length === 2 && (opts.depolarizing2q ?? 0) > 0) out.push({ kind: 'depolarizing', qubits, p: opts.depolarizing2q! });
      return out;
    },
    readout() {
      return opts.readout ?? [0, 0];
    },
  };
}
