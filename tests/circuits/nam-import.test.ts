import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureFile } from '../helpers/fixture-file.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';

const DIR = fixtureFile('benchmarks/nam');

/** Parses the table of tests/fixtures/benchmarks/nam/README.md: circuit → [qubits, [total, cnot] × 3]. */
function readmeTable(): Map<string, { qubits: number; counts: Record<string, [number, number]> }> {
  const rows = new Map<string, { qubits: number; counts: Record<string, [number, number]> }>();
  for (const line of readFileSync(join(DIR, 'README.md'), 'utf8').split('\n')) {
    const m = /^\| (\S+) \| (\d+) \| (\d+)\/(\d+) \| (\d+)\/(\d+) \| (\d+)\/(\d+) \|$/.exec(line);
    if (!m) continue;
    const n = m.slice(2).map(Number);
    rows.set(m[1]!, {
      qubits: n[0]!,
      counts: { before: [n[1]!, n[2]!], after_light: [n[3]!, n[4]!], after_heavy: [n[5]!, n[6]!] },
    });
  }
  return rows;
}

describe('Nam benchmark import', () => {
  const table = readmeTable();
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.qasm'))
    .sort();

  it('finds the 84 files and the 28 table rows', () => {
    expect(files).toHaveLength(84);
    expect(table.size).toBe(28);
  });

  for (const file of files) {
    it(`imports ${file} with the README's gate totals and CNOT count`, () => {
      const m = /^(.+)\.(before|after_light|after_heavy)\.qasm$/.exec(file)!;
      const row = table.get(m[1]!)!;
      const c = parseQasm(readFileSync(join(DIR, file), 'utf8'));
      const [total, cnot] = row.counts[m[2]!]!;
      expect(c.numQubits).toBe(row.qubits);
      expect(c.numClbits).toBe(0);
      expect(c.ops.length).toBe(total);
      expect(c.ops.filter((o) => o.kind === 'gate' && o.name === 'cx').length).toBe(cnot);
      const names = new Set(c.ops.map((o) => (o.kind === 'gate' ? o.name : o.kind)));
      // csum_mux_9's input keeps its Toffolis as ccx (as the source holds it)
      for (const n of names) expect(['h', 'x', 'cx', 't', 'tdg', 's', 'sdg', 'z', ...(file === 'csum_mux_9.before.qasm' ? ['ccx'] : [])]).toContain(n);
    });
  }
});
