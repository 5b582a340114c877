/**
 * Small backends cut out of IBM's recorded ibm_fez answers (tests/fixtures/providers/ibm), served
 * by the IBM fake instead of its built-in device: the faulty-qubit and readout-mitigation tests
 * share them. Read from the fixture files each time, so a test may change its copy freely.
 */
import { readFileSync } from 'node:fs';
import { fixtureFile } from '../../helpers/fixture-file.js';

export const fezJson = (name: 'conf_fez.json' | 'props_fez.json') => JSON.parse(readFileSync(fixtureFile(`providers/ibm/${name}`), 'utf8')) as Record<string, unknown>;

type Props = { qubits: unknown[][]; gates: Array<{ gate: string; qubits: number[]; parameters: unknown[] }> };

/**
 * A 5-qubit backend cut out of IBM's recorded ibm_fez answers: its qubits 0–4 (a chain, basis cz),
 * their gates and calibration as recorded, with qubit 4 and the cz of pair 0–1 marked
 * non-operational the way qiskit-ibm-runtime's tests do it.
 */
export function faultyFezExcerpt() {
  const keep = (qs: readonly number[]) => qs.every((q) => q < 5);
  const configuration = fezJson('conf_fez.json') as Record<string, unknown> & { coupling_map: number[][] };
  configuration['n_qubits'] = 5;
  configuration.coupling_map = configuration.coupling_map.filter(keep);
  const properties = fezJson('props_fez.json') as Props;
  properties.qubits = properties.qubits.slice(0, 5);
  properties.gates = properties.gates.filter((g) => keep(g.qubits));
  properties.qubits[4]!.push({ date: '2026-11-26T05:10:00Z', name: 'operational', unit: '', value: 0 });
  for (const g of properties.gates) if (g.gate === 'cz' && g.qubits.join() === '0,1') g.parameters.push({ date: '2026-11-26T05:10:00Z', name: 'operational', unit: '', value: 0 });
  return { configuration: configuration as Record<string, unknown>, properties: properties as unknown as Record<string, unknown> };
}

/** An n-qubit GHZ circuit in the wire format, qubit q measured into clbit q. */
export const ghzWire = (n: number) => ({
  schema: '0.2',
  num_qubits: n,
  num_clbits: n,
  gates: [{ op: 'h', qubits: [0] }, ...Array.from({ length: n - 1 }, (_, i) => ({ op: 'cx', qubits: [i, i + 1] }))],
  measurements: Array.from({ length: n }, (_, q) => ({ qubit: q, clbit: q })),
});
