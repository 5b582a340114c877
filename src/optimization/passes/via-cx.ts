import type { GateOp } from '../../circuits/ir.js';
import { g, PI } from '../gate-info.js';

/** Two-qubit gates written with CX and one-qubit gates (each checked by `resynth-2q`). */
export function viaCx(op: GateOp): GateOp[] | undefined {
  const [a, b] = op.qubits as [number, number];
  const t = op.params[0] ?? 0;
  switch (op.name) {
    case 'cx':
      return [op];
    case 'cz':
      return [g('h', [b]), g('cx', [a, b]), g('h', [b])];
    case 'cy':
      return [g('sdg', [b]), g('cx', [a, b]), g('s', [b])];
    case 'swap':
      return [g('cx', [a, b]), g('cx', [b, a]), g('cx', [a, b])];
    case 'ch':
      return [g('ry', [b], [PI / 4]), g('cx', [a, b]), g('ry', [b], [-PI / 4])];
    case 'crz':
      return [g('rz', [b], [t / 2]), g('cx', [a, b]), g('rz', [b], [-t / 2]), g('cx', [a, b])];
    case 'cp':
    case 'cu1':
      return [g('rz', [a], [t / 2]), g('cx', [a, b]), g('rz', [b], [-t / 2]), g('cx', [a, b]), g('rz', [b], [t / 2])];
    case 'crx':
      return [g('h', [b]), ...viaCx(g('crz', [a, b], [t]))!, g('h', [b])];
    case 'cry':
      return [g('ry', [b], [t / 2]), g('cx', [a, b]), g('ry', [b], [-t / 2]), g('cx', [a, b])];
    case 'rzz':
      return [g('cx', [a, b]), g('rz', [b], [t]), g('cx', [a, b])];
    case 'rxx':
      return [g('h', [a]), g('h', [b]), g('cx', [a, b]), g('rz', [b], [t]), g('cx', [a, b]), g('h', [a]), g('h', [b])];
    case 'ryy':
      return [g('rx', [a], [PI / 2]), g('rx', [b], [PI / 2]), g('cx', [a, b]), g('rz', [b], [t]), g('cx', [a, b]), g('rx', [a], [-PI / 2]), g('rx', [b], [-PI / 2])];
    // √X = H·S·H exactly, so controlled-√X = H_b · CP(π/2) · H_b
    case 'csx':
      return [g('h', [b]), ...viaCx(g('cp', [a, b], [PI / 2]))!, g('h', [b])];
    case 'cu3':
    case 'cu': {
      // controlled e^{iγ}·u3(θ,φ,λ) = phase γ on the control, then the ABC form A·X·B·X·C with A·B·C = I
      const [th = 0, ph = 0, la = 0, ga = 0] = op.params;
      return [
        ...(ga === 0 ? [] : [g('p', [a], [ga])]),
        g('p', [a], [(la + ph) / 2]),
        g('p', [b], [(la - ph) / 2]),
        g('cx', [a, b]),
        g('u3', [b], [-th / 2, 0, -(ph + la) / 2]),
        g('cx', [a, b]),
        g('u3', [b], [th / 2, ph, 0]),
      ];
    }
    default:
      return undefined;
  }
}
