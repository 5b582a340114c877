import type { PureState } from '../../src/coupling/reduced-states.js';

/** Hand-built test states (index bit k ↔ qubit k). */
export function fromAmplitudes(numQubits: number, amps: Record<number, [number, number] | number>): PureState {
  const re = new Float64Array(1 << numQubits);
  const im = new Float64Array(1 << numQubits);
  for (const [k, v] of Object.entries(amps)) {
    const [r, i] = typeof v === 'number' ? [v, 0] : v;
    re[Number(k)] = r;
    im[Number(k)] = i;
  }
  return { numQubits, re, im };
}

export const bell = (): PureState => fromAmplitudes(2, { 0: Math.SQRT1_2, 3: Math.SQRT1_2 });

export function ghz(n: number): PureState {
  return fromAmplitudes(n, { 0: Math.SQRT1_2, [(1 << n) - 1]: Math.SQRT1_2 });
}

export function wState(n: number): PureState {
  const amps: Record<number, number> = {};
  for (let q = 0; q < n; q++) amps[1 << q] = 1 / Math.sqrt(n);
  return fromAmplitudes(n, amps);
}

/** ⊗ of single-qubit states given as [α, β] complex pairs (qubit 0 first). */
export function product(qubits: ReadonlyArray<[[number, number], [number, number]]>): PureState {
  const n = qubits.length;
  const re = new Float64Array(1 << n);
  const im = new Float64Array(1 << n);
  for (let i = 0; i < 1 << n; i++) {
    let r = 1,
      m = 0;
    for (let q = 0; q < n; q++) {
      const [ar, ai] = qubits[q]![(i >> q) & 1]!;
      [r, m] = [r * ar - m * ai, r * ai + m * ar];
    }
    re[i] = r;
    im[i] = m;
  }
  return { numQubits: n, re, im };
}

/** A deterministic pseudo-random normalised state (mulberry32). */
export function randomState(n: number, seed: number): PureState {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const re = new Float64Array(1 << n);
  const im = new Float64Array(1 << n);
  let norm = 0;
  for (let i = 0; i < 1 << n; i++) {
    re[i] = rnd() - 0.5;
    im[i] = rnd() - 0.5;
    norm += re[i]! ** 2 + im[i]! ** 2;
  }
  const k = 1 / Math.sqrt(norm);
  for (let i = 0; i < 1 << n; i++) {
    re[i] = re[i]! * k;
    im[i] = im[i]! * k;
  }
  return { numQubits: n, re, im };
}
