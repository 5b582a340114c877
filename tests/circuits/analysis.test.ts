import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureFile } from '../helpers/fixture-file.js';
import { analyzeCircuit, tCount, zRotationKind } from '../../src/circuits/analysis/analyze.js';
import { deviceCompatibility } from '../../src/circuits/analysis/compatibility.js';
import { interactionComponents, lightConePairs } from '../../src/circuits/analysis/entanglement.js';
import { EXAMPLE_NAMES, getExample } from '../../src/circuits/examples.js';
import { circuit, gate, measure, reset } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { parseCircuitInput, requireCircuit } from '../../src/circuits/wire-format.js';
import { DEVICES, getDevice } from '../../src/devices/device-catalogue.js';

const example = (name: 'bell' | 'ghz' | 'optimizable') => requireCircuit(getExample(name)).circuit;
const nam = (file: string) => parseQasm(readFileSync(fixtureFile(`benchmarks/nam/${file}`), 'utf8'));

describe('examples', () => {
  it.each(EXAMPLE_NAMES)('%s is a valid 0.2 circuit', (name) => {
    const r = parseCircuitInput(getExample(name));
    expect(r.ok).toBe(true);
    expect(r.ok && r.warnings).toEqual([]);
  });
});

describe('analysis, hand-computed', () => {
  it('bell', () => {
    const a = analyzeCircuit(example('bell'), { devices: DEVICES });
    expect(a).toMatchObject({
      num_qubits: 2,
      num_clbits: 2,
      qubits_used: [0, 1],
      depth: 3, // h | cx | two measurements in parallel
      operation_count: 4,
      gate_count: 2,
      counts_by_kind: { cx: 1, h: 1, measure: 2 },
      single_qubit_count: 1,
      two_qubit_count: 1,
      multi_qubit_count: 0,
      t_count: 0,
      measurements: [
        { qubit: 0, clbit: 0, terminal: true },
        { qubit: 1, clbit: 1, terminal: true },
      ],
      interaction_graph: { nodes: [0, 1], edges: [{ qubits: [0, 1], weight: 1 }] },
      entanglement: { components: [[0, 1]], possibly_entangled_pairs: [[0, 1]] },
    });
    const byDevice = Object.fromEntries(a.compatibility.flatMap((p) => p.devices).map((d) => [d.device, d.status]));
    expect(byDevice).toEqual({
      'p1-simulator': 'compatible',
      'p1-falcon-7': 'needs_translation', // h is not native
      'p1-falcon-27': 'needs_translation',
      'p2-local-simulator': 'compatible',
      'p2-ion-11': 'needs_translation', // h and cx are not native
      'p2-grid-9': 'needs_translation',
    });
    expect(a.compatibility.map((p) => [p.provider, p.status])).toEqual([
      ['provider-one', 'compatible'],
      ['provider-two', 'compatible'],
    ]);
  });

  it('ghz', () => {
    const a = analyzeCircuit(example('ghz'));
    expect(a).toMatchObject({
      depth: 4, // h | cx01 | cx12 | measure q1,q2 (q0 measured in layer 3)
      counts_by_kind: { cx: 2, h: 1, measure: 3 },
      two_qubit_count: 2,
      t_count: 0,
      interaction_graph: {
        edges: [
          { qubits: [0, 1], weight: 1 },
          { qubits: [1, 2], weight: 1 },
        ],
      },
      entanglement: {
        components: [[0, 1, 2]],
        possibly_entangled_pairs: [
          [0, 1],
          [0, 2],
          [1, 2],
        ],
      },
    });
  });

  it('tof_3.before (Nam): counted independently from the file', () => {
    const a = analyzeCircuit(nam('tof_3.before.qasm'));
    expect(a).toMatchObject({
      num_qubits: 5,
      qubits_used: [0, 1, 2, 3, 4],
      depth: 33,
      gate_count: 45,
      counts_by_kind: { cx: 18, h: 6, t: 12, tdg: 9 },
      two_qubit_count: 18,
      t_count: 21,
      measurement_count: 0,
    });
    expect(a.interaction_graph.edges).toEqual([
      { qubits: [0, 1], weight: 4 },
      { qubits: [0, 4], weight: 4 },
      { qubits: [1, 4], weight: 4 },
      { qubits: [2, 3], weight: 2 },
      { qubits: [2, 4], weight: 2 },
      { qubits: [3, 4], weight: 2 },
    ]);
  });

  it('barenco_tof_3.before (Nam)', () => {
    const a = analyzeCircuit(nam('barenco_tof_3.before.qasm'));
    expect(a).toMatchObject({ depth: 45, gate_count: 58, counts_by_kind: { cx: 24, h: 6, t: 16, tdg: 12 }, two_qubit_count: 24, t_count: 28 });
    expect(a.entanglement.components).toEqual([[0, 1, 2, 3, 4]]);
  });
});

describe('T-count convention', () => {
  it('counts t, tdg and z-rotations by odd multiples of pi/4', () => {
    expect(zRotationKind(Math.PI / 4)).toBe('t');
    expect(zRotationKind((-3 * Math.PI) / 4)).toBe('t');
    expect(zRotationKind(Math.PI / 2)).toBe('clifford');
    expect(zRotationKind(0.3)).toBe('other');
    const c = circuit(1, 0, [gate('t', [0]), gate('tdg', [0]), gate('rz', [0], [Math.PI / 4]), gate('p', [0], [Math.PI]), gate('u1', [0], [0.3]), gate('rx', [0], [0.1])]);
    expect(tCount(c)).toEqual({ t: 3, nonClifford: 2 });
  });
});

describe('entanglement structure', () => {
  it('light cones join through chains, and a reset cuts a qubit from its past', () => {
    expect(lightConePairs(circuit(3, 0, [gate('cx', [1, 2]), gate('cx', [0, 1])]))).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(lightConePairs(circuit(3, 0, [gate('cx', [0, 1]), reset(1), gate('cx', [1, 2])]))).toEqual([[1, 2]]);
    expect(lightConePairs(circuit(2, 1, [gate('cx', [0, 1]), measure(1, 0), gate('h', [1])]))).toEqual([]);
    // Terminal measurements do not cut: the question is about the state before them.
    expect(lightConePairs(circuit(2, 2, [gate('cx', [0, 1]), measure(0, 0), measure(1, 1)]))).toEqual([[0, 1]]);
    expect(interactionComponents(circuit(4, 0, [gate('cx', [0, 2]), gate('h', [3])]))).toEqual([[0, 2], [3]]);
  });

  it('reports exact entanglement as unavailable without a simulator', () => {
    const a = analyzeCircuit(example('bell'));
    expect(a.entanglement.entangled_pairs).toBeNull();
    expect(a.entanglement.entangled_pairs_unavailable_reason).toMatch(/simulator/);
  });
});

describe('compatibility reasons', () => {
  it('needs routing for uncoupled pairs', () => {
    const d = deviceCompatibility(circuit(3, 0, [gate('cx', [0, 2])]), getDevice('p1-falcon-7')!);
    expect(d.status).toBe('needs_translation');
    expect(d.uncoupled_pairs).toEqual([[0, 2]]);
    expect(d.reasons.join(' ')).toMatch(/routing/);
  });

  it('is incompatible with too many qubits or unsupported mid-circuit measurement', () => {
    const big = circuit(
      8,
      0,
      Array.from({ length: 8 }, (_, q) => gate('x', [q])),
    );
    expect(deviceCompatibility(big, getDevice('p1-falcon-7')!).status).toBe('incompatible');
    const mid = circuit(2, 1, [measure(0, 0), gate('x', [0])]);
    const ion = deviceCompatibility(mid, getDevice('p2-ion-11')!);
    expect(ion.status).toBe('incompatible');
    expect(ion.reasons.join(' ')).toMatch(/mid-circuit measurement/);
  });

  it('needs relabelling when declared qubits exceed the device but used ones fit', () => {
    const sparse = circuit(10, 0, [gate('cx', [0, 1])]);
    expect(deviceCompatibility(sparse, getDevice('p1-falcon-7')!).status).toBe('needs_translation');
  });
});
