/**
 * Larger circuits built from the Nam benchmark family, for the scaling section of bench:opt:
 * each family at 1×, 2×, 4× and 8× (about) its gate count.
 */
import { circuit, gate, type Circuit, type GateOp, type Operation } from '../../src/circuits/ir.js';
import { ccxCircuit } from '../../src/optimization/passes/multi-qubit.js';

/** The Clifford+T Toffoli (7 T gates, 15 gates): the optimizer's own `template:ccx-decompose` instance. */
const toffoli = (a: number, b: number, t: number): GateOp[] => ccxCircuit(a, b, t);

/** tof_n: n controls, n−2 ancillas computed as a ladder of Toffolis, the target, then uncomputed. */
export function tofN(n: number): Circuit {
  const c = (i: number) => i;
  const anc = (i: number) => n + i;
  const target = 2 * n - 2;
  const up: GateOp[][] = [toffoli(c(0), c(1), anc(0))];
  for (let i = 2; i < n - 1; i++) up.push(toffoli(c(i), anc(i - 2), anc(i - 1)));
  const ops = [...up.flat(), ...toffoli(c(n - 1), anc(n - 3), target), ...[...up].reverse().flat()];
  return circuit(2 * n - 1, 0, ops);
}

/** barenco_tof_n: Barenco et al.'s ladder with n−2 borrowed ancillas (Lemma 7.2: 4(n−2) Toffolis). */
export function barencoTofN(n: number): Circuit {
  const anc = (i: number) => n + i;
  const target = 2 * n - 2;
  const down: GateOp[][] = [];
  for (let i = n - 1; i >= 2; i--) down.push(toffoli(i, anc(i - 2), i === n - 1 ? target : anc(i - 1)));
  const base = toffoli(0, 1, anc(0));
  const rest = down.slice(1);
  const ops = [...down.flat(), ...base, ...[...down].reverse().flat(), ...rest.flat(), ...base, ...[...rest].reverse().flat()];
  return circuit(2 * n - 1, 0, ops);
}

/** k copies of a circuit, copy j shifted by j·(width − shared) qubits: consecutive copies share `shared` wires. */
export function chain(c: Circuit, k: number, shared: number): Circuit {
  const step = c.numQubits - shared;
  const ops: Operation[] = [];
  for (let j = 0; j < k; j++) {
    for (const op of c.ops) {
      if (op.kind !== 'gate') continue;
      ops.push(
        gate(
          op.name,
          op.qubits.map((q) => q + j * step),
          op.params,
        ),
      );
    }
  }
  return circuit(step * (k - 1) + c.numQubits, 0, ops);
}
