import type { GateOp } from '../circuits/ir.js';
import { quarterTurns } from '../verification/numeric-policy.js';
import { phaseOf } from './gate-info.js';

/**
 * Pauli strings and a Clifford tableau for the Pauli-rotation pass (passes/pauli-rotations.ts).
 * A Pauli is i^p·X^x·Z^z with x, z bit masks over the qubits (bigints). The tableau of a Clifford F
 * keeps per qubit the pull-backs F†X_qF and F†Z_qF: a phase gate on q after F is a rotation about the
 * pull-back of Z_q. The certificate checker has its own (src/verification/pauli-rotation-check.ts).
 */
export interface Pauli {
  readonly p: number;
  readonly x: bigint;
  readonly z: bigint;
}

function parity(v: bigint): number {
  let s = 0;
  while (v) {
    let w = Number(v & 0xffffffffn);
    while (w) {
      s ^= 1;
      w &= w - 1;
    }
    v >>= 32n;
  }
  return s;
}
function count(v: bigint): number {
  let s = 0;
  while (v) {
    let w = Number(v & 0xffffffffn);
    while (w) {
      s++;
      w &= w - 1;
    }
    v >>= 32n;
  }
  return s;
}

export const mul = (a: Pauli, b: Pauli): Pauli => ({ p: (a.p + b.p + 2 * count(a.z & b.x)) % 4, x: a.x ^ b.x, z: a.z ^ b.z });
export const commuting = (a: Pauli, b: Pauli): boolean => parity((a.x & b.z) ^ (a.z & b.x)) === 0;
/** +1 or −1: the Hermitian Pauli a against its Y-form (X·Z on a qubit is −i·Y). */
export const signOf = (a: Pauli): number => ((((a.p - count(a.x & a.z)) % 4) + 4) % 4 === 0 ? 1 : -1);
export const keyOf = (a: Pauli): string => `${a.x.toString(36)}:${a.z.toString(36)}`;
export const support = (a: Pauli): bigint => a.x | a.z;

/** Phase gates whose angle is a multiple of π/2 are Clifford (S^k), others rotations (undefined). */
export function cliffordPhase(op: GateOp): number | undefined {
  const a = phaseOf(op);
  return a === undefined ? undefined : quarterTurns(a);
}

const CLIFFORD = new Set(['h', 'x', 'y', 'cx', 'cz', 'swap', 'id']);
/** Whether the pass can read the gate: a Clifford it knows or a phase gate. */
export const readable = (op: GateOp): boolean => new Set(op.qubits).size === op.qubits.length && (phaseOf(op) !== undefined || (CLIFFORD.has(op.name) && op.params.length === 0));

export class Tableau {
  private readonly xs: Pauli[] = [];
  private readonly zs: Pauli[] = [];
  constructor(n: number) {
    for (let q = 0; q < n; q++) {
      this.xs.push({ p: 0, x: 1n << BigInt(q), z: 0n });
      this.zs.push({ p: 0, x: 0n, z: 1n << BigInt(q) });
    }
  }

  pullZ(q: number): Pauli {
    return this.zs[q]!;
  }

  isIdentity(): boolean {
    return this.xs.every((r, q) => r.p === 0 && r.z === 0n && r.x === 1n << BigInt(q)) && this.zs.every((r, q) => r.p === 0 && r.x === 0n && r.z === 1n << BigInt(q));
  }

  /** Appends a Clifford gate (a phase gate must be a quarter turn: see cliffordPhase). */
  append(op: GateOp): void {
    const [a, b] = op.qubits as [number, number];
    const X = this.xs;
    const Z = this.zs;
    const k = cliffordPhase(op);
    if (k !== undefined) {
      // S†XS = −Y = i³XZ, Z†XZ = −X, SXS† = Y = iXZ
      if (k === 1) X[a] = mul({ ...X[a]!, p: (X[a]!.p + 3) % 4 }, Z[a]!);
      else if (k === 2) X[a] = { ...X[a]!, p: (X[a]!.p + 2) % 4 };
      else if (k === 3) X[a] = mul({ ...X[a]!, p: (X[a]!.p + 1) % 4 }, Z[a]!);
      return;
    }
    switch (op.name) {
      case 'h':
        [X[a], Z[a]] = [Z[a]!, X[a]!];
        return;
      case 'x':
        Z[a] = { ...Z[a]!, p: (Z[a]!.p + 2) % 4 };
        return;
      case 'y':
        X[a] = { ...X[a]!, p: (X[a]!.p + 2) % 4 };
        Z[a] = { ...Z[a]!, p: (Z[a]!.p + 2) % 4 };
        return;
      case 'cx':
        X[a] = mul(X[a]!, X[b]!);
        Z[b] = mul(Z[a]!, Z[b]!);
        return;
      case 'cz':
        [X[a], X[b]] = [mul(X[a]!, Z[b]!), mul(Z[a]!, X[b]!)];
        return;
      case 'swap':
        [X[a], X[b], Z[a], Z[b]] = [X[b]!, X[a]!, Z[b]!, Z[a]!];
        return;
      case 'id':
        return;
      default:
        throw new Error(`pauli-frame: ${op.name} is not a Clifford gate`);
    }
  }
}
