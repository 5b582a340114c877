import type { Operation } from '../circuits/ir.js';
import type { CertificateStep } from './certificate-types.js';
import { phaseAngleOf } from './certificate-rules.js';
import { addAngles, CERTIFICATE_BUDGET, quarterTurns, rotationDistance } from './numeric-policy.js';

/**
 * The checker of rule `pauli-rotations` (certificate-types.ts). Written independently of the pass
 * (src/optimization/passes/pauli-rotations.ts): its own Pauli strings, tableau and gate table.
 *
 * A Pauli is i^p·X^x·Z^z with x, z bit vectors over the qubits (packed in 32-bit words): products
 * multiply as X^a Z^b X^c Z^d = (−1)^{b·c} X^{a+c} Z^{b+d}. The tableau of a Clifford F keeps, per
 * qubit q, the pull-backs F†X_qF and F†Z_qF; appending a gate g replaces the rows of g's qubits by
 * the products that F†(g†·G·g)F makes of them.
 */
interface Pauli {
  p: number;
  x: Uint32Array;
  z: Uint32Array;
}

const popcount = (v: number): number => {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

function times(a: Pauli, b: Pauli): Pauli {
  let sign = 0;
  const x = new Uint32Array(a.x.length);
  const z = new Uint32Array(a.x.length);
  for (let w = 0; w < x.length; w++) {
    sign += popcount(a.z[w]! & b.x[w]!);
    x[w] = a.x[w]! ^ b.x[w]!;
    z[w] = a.z[w]! ^ b.z[w]!;
  }
  return { p: (a.p + b.p + 2 * sign) % 4, x, z };
}

function anticommute(a: Pauli, b: Pauli): boolean {
  let s = 0;
  for (let w = 0; w < a.x.length; w++) s ^= popcount((a.x[w]! & b.z[w]!) ^ (a.z[w]! & b.x[w]!)) & 1;
  return s === 1;
}

const samePauli = (a: Pauli, b: Pauli): boolean => a.x.every((v, w) => v === b.x[w] && a.z[w] === b.z[w]);

/** A one-qubit or two-qubit local generator: the gate's qubit position and X or Z. */
type Local = readonly [number, 'X' | 'Z'];
/** g†·G·g for each local generator G (X of position 0, Z of 0, X of 1, Z of 1): phase i^p times a product. */
type Image = readonly [number, readonly Local[]];
const ID1: readonly Image[] = [
  [0, [[0, 'X']]],
  [0, [[0, 'Z']]],
];
/** X·Z = −i·Y, so Y = i·X·Z (phase 1) and −Y = i³·X·Z. */
const CONJ: Readonly<Record<string, readonly Image[]>> = {
  h: [
    [0, [[0, 'Z']]],
    [0, [[0, 'X']]],
  ],
  x: [
    [0, [[0, 'X']]],
    [2, [[0, 'Z']]],
  ],
  y: [
    [2, [[0, 'X']]],
    [2, [[0, 'Z']]],
  ],
  // phase gates S^k: S†XS = −Y, Z†XZ = −X, SXS† = Y; Z is fixed
  s1: [
    [
      3,
      [
        [0, 'X'],
        [0, 'Z'],
      ],
    ],
    [0, [[0, 'Z']]],
  ],
  s2: [
    [2, [[0, 'X']]],
    [0, [[0, 'Z']]],
  ],
  s3: [
    [
      1,
      [
        [0, 'X'],
        [0, 'Z'],
      ],
    ],
    [0, [[0, 'Z']]],
  ],
  cx: [
    [
      0,
      [
        [0, 'X'],
        [1, 'X'],
      ],
    ],
    [0, [[0, 'Z']]],
    [0, [[1, 'X']]],
    [
      0,
      [
        [0, 'Z'],
        [1, 'Z'],
      ],
    ],
  ],
  cz: [
    [
      0,
      [
        [0, 'X'],
        [1, 'Z'],
      ],
    ],
    [0, [[0, 'Z']]],
    [
      0,
      [
        [0, 'Z'],
        [1, 'X'],
      ],
    ],
    [0, [[1, 'Z']]],
  ],
  swap: [
    [0, [[1, 'X']]],
    [0, [[1, 'Z']]],
    [0, [[0, 'X']]],
    [0, [[0, 'Z']]],
  ],
};

export interface PauliProgram {
  /** Rotations in time order: exp(−i·angle/2·sign·P) with P = pull-back of Z (angle taken mod 2π). */
  readonly rotations: { readonly pauli: Pauli; readonly angle: number }[];
  /** Rows 2q (X_q) and 2q+1 (Z_q) of the whole run's Clifford. */
  readonly rows: Pauli[];
  /** The rounding of phase gates read as Clifford (twice their distance from k·π/2). */
  readonly rounding: number;
}

/** Reads a run of gates as Pauli rotations and a Clifford, or says which gate it cannot read. */
export function pauliProgram(ops: readonly Operation[], n: number): PauliProgram | string {
  const words = Math.max(1, Math.ceil(n / 32));
  const unit = (q: number, k: 'X' | 'Z'): Pauli => {
    const r = { p: 0, x: new Uint32Array(words), z: new Uint32Array(words) };
    (k === 'X' ? r.x : r.z)[q >>> 5]! |= 1 << (q & 31);
    return r;
  };
  const rows: Pauli[] = [];
  for (let q = 0; q < n; q++) rows.push(unit(q, 'X'), unit(q, 'Z'));
  const rotations: { pauli: Pauli; angle: number }[] = [];
  let rounding = 0;
  for (const op of ops) {
    if (op.kind !== 'gate') return `a ${op.kind} is not a gate`;
    const qs = op.qubits;
    if (new Set(qs).size !== qs.length || qs.some((q) => q >= n)) return `gate ${op.name} has repeated or out-of-range qubits`;
    let table: readonly Image[] | undefined;
    const a = phaseAngleOf(op);
    if (a !== undefined) {
      const k = quarterTurns(a);
      if (k === undefined) {
        const z = rows[2 * qs[0]! + 1]!;
        rotations.push({ pauli: { p: z.p, x: z.x.slice(), z: z.z.slice() }, angle: a });
        continue;
      }
      rounding += 2 * rotationDistance(a, k * (Math.PI / 2));
      table = k === 0 ? ID1 : CONJ[`s${k}`];
    } else if (op.params.length !== 0) table = undefined;
    else if (op.name === 'id') table = ID1;
    else table = CONJ[op.name];
    if (!table || table.length !== 2 * qs.length) return `gate ${op.name} is not a Clifford gate the rule reads`;
    const old = qs.flatMap((q) => [rows[2 * q]!, rows[2 * q + 1]!]);
    table.forEach(([p, factors], i) => {
      let r: Pauli = { p, x: new Uint32Array(words), z: new Uint32Array(words) };
      for (const [pos, k] of factors) r = times(r, old[2 * pos + (k === 'X' ? 0 : 1)]!);
      rows[2 * qs[i >> 1]! + (i & 1)] = r;
    });
  }
  return { rotations, rows, rounding };
}

/** The sign (+1 or −1) of a Hermitian i^p·X^x·Z^z against its Y-form (X·Z on a qubit = −i·Y). */
function hermitianSign(a: Pauli): number {
  let y = 0;
  for (let w = 0; w < a.x.length; w++) y += popcount(a.x[w]! & a.z[w]!);
  const s = (((a.p - y) % 4) + 4) % 4;
  return s === 0 ? 1 : s === 2 ? -1 : NaN;
}

/** A problem (string) or the step's numeric deviation. */
export function checkPauliRotations(step: CertificateStep): string | number {
  const { positions, replaced, inserted } = step;
  if (step.span !== undefined || step.inPlace !== undefined || step.anchor !== undefined || step.insertAt !== undefined) return 'a pauli-rotations step carries no span, inPlace, anchor or insertAt';
  for (let i = 1; i < positions.length; i++) if (positions[i] !== positions[i - 1]! + 1) return 'positions are not contiguous';
  const trace = step.witness?.trace;
  if (!trace) return 'no witness trace';
  let n = 1;
  for (const o of [...replaced, ...inserted]) if (o.kind === 'gate') for (const q of o.qubits) n = Math.max(n, q + 1);
  const a = pauliProgram(replaced, n);
  if (typeof a === 'string') return `replaced run: ${a}`;
  const b = pauliProgram(inserted, n);
  if (typeof b === 'string') return `inserted run: ${b}`;
  for (let r = 0; r < a.rows.length; r++) {
    if (a.rows[r]!.p !== b.rows[r]!.p || !samePauli(a.rows[r]!, b.rows[r]!)) return 'the runs have different Clifford parts';
  }
  const left = a.rotations.map(() => true);
  let deviation = a.rounding + b.rounding;
  // entries [j, k1, k2, …]: new rotation j (in increasing order, each once) or −1 for a group whose
  // rotations cancel (their angles must add up to 0), made of replaced rotations k1 < k2 < …
  let next = 0;
  for (const entry of trace) {
    const [j, ...ks] = entry;
    if (j !== -1 && j !== next) return `trace entry for new rotation ${j} is out of order`;
    if (j === -1 && !ks.length) return 'an empty cancelling group';
    if (j !== -1) next++;
    const target = j === -1 ? { pauli: a.rotations[ks[0]!]?.pauli, angle: 0 } : b.rotations[j]!;
    if (!target.pauli) return `trace names rotation ${ks[0]} out of range`;
    const tSign = hermitianSign(target.pauli);
    if (Number.isNaN(tSign)) return `new rotation ${j} is not about a Hermitian Pauli`;
    let sum = 0;
    let prev = -1;
    for (const k of ks) {
      if (!Number.isInteger(k) || k <= prev || k >= a.rotations.length || !left[k]) return `trace entry ${j} names rotation ${k} out of order, out of range or twice`;
      prev = k;
      const src = a.rotations[k]!;
      if (!samePauli(src.pauli, target.pauli)) return `rotation ${k} is not about the Pauli of new rotation ${j}`;
      for (let e = 0; e < k; e++) if (left[e] && anticommute(a.rotations[e]!.pauli, src.pauli)) return `rotation ${k} does not commute with rotation ${e} before it`;
      left[k] = false;
      const sign = hermitianSign(src.pauli) * tSign;
      if (Number.isNaN(sign)) return `rotation ${k} is not about a Hermitian Pauli`;
      sum = addAngles(sum, sign * src.angle);
    }
    deviation += rotationDistance(sum, target.angle);
  }
  if (next !== b.rotations.length) return 'the trace does not give one entry per new rotation';
  left.forEach((l, k) => {
    if (l) deviation += rotationDistance(a.rotations[k]!.angle, 0);
  });
  if (!(deviation <= CERTIFICATE_BUDGET)) return `the rotations' angles differ by ${deviation.toExponential(3)}, above the certificate budget`;
  return deviation;
}
