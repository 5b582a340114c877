/**
 * The noise channels, resets and discarded measurements as Kraus operators (their Pauli transfer
 * matrices are built in pauli-transfer.ts). Matrices follow the engine's convention
 * (gate-matrices.ts): bit j of the index ↔ the j-th qubit of the list.
 */
import type { DenseMatrix } from '../gate-matrices.js';
import type { NoiseChannel } from '../noise.js';

export interface Kraus {
  readonly k: number;
  readonly ops: readonly DenseMatrix[];
}

const mat = (k: number, entries: readonly (readonly [number, number])[]): DenseMatrix => ({ k, re: Float64Array.from(entries.map((e) => e[0])), im: Float64Array.from(entries.map((e) => e[1])) });

const PAULI: readonly DenseMatrix[] = [
  mat(1, [
    [1, 0],
    [0, 0],
    [0, 0],
    [1, 0],
  ]),
  mat(1, [
    [0, 0],
    [1, 0],
    [1, 0],
    [0, 0],
  ]),
  mat(1, [
    [0, 0],
    [0, -1],
    [0, 1],
    [0, 0],
  ]),
  mat(1, [
    [1, 0],
    [0, 0],
    [0, 0],
    [-1, 0],
  ]),
];

/** a ⊗ b with a on bit 0 and b on bit 1. */
function kron2(a: DenseMatrix, b: DenseMatrix): DenseMatrix {
  const re = new Float64Array(16);
  const im = new Float64Array(16);
  for (let ra = 0; ra < 2; ra++)
    for (let ca = 0; ca < 2; ca++)
      for (let rb = 0; rb < 2; rb++)
        for (let cb = 0; cb < 2; cb++) {
          const xr = a.re[ra * 2 + ca]!;
          const xi = a.im[ra * 2 + ca]!;
          const yr = b.re[rb * 2 + cb]!;
          const yi = b.im[rb * 2 + cb]!;
          const i = (ra + 2 * rb) * 4 + (ca + 2 * cb);
          re[i] = xr * yr - xi * yi;
          im[i] = xr * yi + xi * yr;
        }
  return { k: 2, re, im };
}

const scaled = (m: DenseMatrix, s: number): DenseMatrix => ({ k: m.k, re: m.re.map((v) => v * s), im: m.im.map((v) => v * s) });

/** ρ → (1−p)ρ + p·I/d on k qubits: every Pauli P ≠ I with weight p/d², the identity with 1 − p + p/d². */
export function depolarizing(k: number, p: number): Kraus {
  const d2 = (1 << k) ** 2;
  const ops: DenseMatrix[] = [];
  if (k === 1) PAULI.forEach((P, i) => ops.push(scaled(P, Math.sqrt(i === 0 ? 1 - p + p / d2 : p / d2))));
  else for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) ops.push(scaled(kron2(PAULI[a]!, PAULI[b]!), Math.sqrt(a === 0 && b === 0 ? 1 - p + p / d2 : p / d2)));
  return { k, ops };
}

export function amplitudeDamping(gamma: number): Kraus {
  return {
    k: 1,
    ops: [
      mat(1, [
        [1, 0],
        [0, 0],
        [0, 0],
        [Math.sqrt(1 - gamma), 0],
      ]),
      mat(1, [
        [0, 0],
        [Math.sqrt(gamma), 0],
        [0, 0],
        [0, 0],
      ]),
    ],
  };
}

export function phaseDamping(lambda: number): Kraus {
  return {
    k: 1,
    ops: [
      mat(1, [
        [1, 0],
        [0, 0],
        [0, 0],
        [Math.sqrt(1 - lambda), 0],
      ]),
      mat(1, [
        [0, 0],
        [0, 0],
        [0, 0],
        [Math.sqrt(lambda), 0],
      ]),
    ],
  };
}

/** Reset to |0⟩: K0 = |0⟩⟨0|, K1 = |0⟩⟨1| (exact, no branching). */
export const RESET: Kraus = {
  k: 1,
  ops: [
    mat(1, [
      [1, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]),
    mat(1, [
      [0, 0],
      [1, 0],
      [0, 0],
      [0, 0],
    ]),
  ],
};

/** A measurement whose outcome is not kept: the off-diagonal terms vanish. */
export const DEPHASE: Kraus = {
  k: 1,
  ops: [
    mat(1, [
      [1, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]),
    mat(1, [
      [0, 0],
      [0, 0],
      [0, 0],
      [1, 0],
    ]),
  ],
};

/** The Kraus form of a channel of the noise model, with its qubits. */
export function krausOf(ch: NoiseChannel): { qubits: readonly number[]; kraus: Kraus } {
  if (ch.kind === 'depolarizing') return { qubits: ch.qubits, kraus: depolarizing(ch.qubits.length, ch.p) };
  if (ch.kind === 'amplitude_damping') return { qubits: [ch.qubit], kraus: amplitudeDamping(ch.gamma) };
  return { qubits: [ch.qubit], kraus: phaseDamping(ch.lambda) };
}
