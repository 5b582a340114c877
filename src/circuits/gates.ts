/**
 * The gate catalogue: every gate name the wire format accepts, with its arity and
 * parameter count. Semantics (matrices) live with each consumer on purpose: the
 * simulator and the optimizer's checker must not share code, so a mistake in one
 * is caught by the other.
 */
export interface GateSpec {
  readonly name: string;
  readonly arity: number;
  readonly params: number;
  /** Where the gate comes from, for docs and QASM export. */
  readonly origin: 'qelib1' | 'qelib1-extended' | 'stdgates' | 'qrail';
}

const spec = (name: string, arity: number, params: number, origin: GateSpec['origin']): GateSpec => Object.freeze({ name, arity, params, origin });

export const GATES: ReadonlyMap<string, GateSpec> = new Map(
  [
    // single-qubit, no parameters
    spec('id', 1, 0, 'qelib1'),
    spec('x', 1, 0, 'qelib1'),
    spec('y', 1, 0, 'qelib1'),
    spec('z', 1, 0, 'qelib1'),
    spec('h', 1, 0, 'qelib1'),
    spec('s', 1, 0, 'qelib1'),
    spec('sdg', 1, 0, 'qelib1'),
    spec('t', 1, 0, 'qelib1'),
    spec('tdg', 1, 0, 'qelib1'),
    spec('sx', 1, 0, 'qelib1-extended'),
    spec('sxdg', 1, 0, 'qelib1-extended'),
    // single-qubit, parameterised
    spec('rx', 1, 1, 'qelib1'),
    spec('ry', 1, 1, 'qelib1'),
    spec('rz', 1, 1, 'qelib1'),
    spec('p', 1, 1, 'qelib1-extended'),
    spec('u0', 1, 1, 'qelib1'),
    spec('u1', 1, 1, 'qelib1'),
    spec('u2', 1, 2, 'qelib1'),
    spec('u3', 1, 3, 'qelib1'),
    spec('u', 1, 3, 'qelib1-extended'),
    // two-qubit
    spec('cx', 2, 0, 'qelib1'),
    spec('cy', 2, 0, 'qelib1'),
    spec('cz', 2, 0, 'qelib1'),
    spec('ch', 2, 0, 'qelib1'),
    spec('swap', 2, 0, 'qelib1'),
    spec('csx', 2, 0, 'qelib1-extended'),
    spec('crx', 2, 1, 'qelib1'),
    spec('cry', 2, 1, 'qelib1'),
    spec('crz', 2, 1, 'qelib1'),
    spec('cu1', 2, 1, 'qelib1'),
    spec('cp', 2, 1, 'qelib1-extended'),
    spec('cu3', 2, 3, 'qelib1'),
    spec('cu', 2, 4, 'qelib1-extended'),
    spec('rxx', 2, 1, 'qelib1-extended'),
    spec('ryy', 2, 1, 'qrail'),
    spec('rzz', 2, 1, 'qelib1-extended'),
    // three or more qubits
    spec('ccx', 3, 0, 'qelib1'),
    spec('ccz', 3, 0, 'qrail'),
    spec('cswap', 3, 0, 'qelib1'),
    spec('rccx', 3, 0, 'qelib1-extended'),
    spec('rc3x', 4, 0, 'qelib1-extended'),
    spec('c3x', 4, 0, 'qelib1-extended'),
    spec('c3sqrtx', 4, 0, 'qelib1-extended'),
    spec('c4x', 5, 0, 'qelib1-extended'),
  ].map((g) => [g.name, g] as const),
);

/** Non-unitary / structural operations of the wire format. */
export const NON_GATE_OPS = ['measure', 'reset', 'barrier'] as const;
export type NonGateOp = (typeof NON_GATE_OPS)[number];

export function gateSpec(name: string): GateSpec | undefined {
  return GATES.get(name);
}
