/**
 * bench:opt — every profile over every Nam et al. benchmark circuit, beside Nam's own
 * light/heavy results counted from the files. Prints a table, then one JSON line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseQasm } from '../src/circuits/qasm/parse-qasm.js';
import { circuitMetrics, type CircuitMetrics } from '../src/optimization/metrics.js';
import { optimizeCircuit, type Profile } from '../src/optimization/optimize.js';
import { sharedFile } from '../tests/helpers/shared.js';

const DIR = process.env['NAM_DIR'] ?? sharedFile('benchmarks/nam');
const PROFILES: Profile[] = ['safe', 'balanced', 'aggressive'];
// NAM_ONLY=adder_8,mod5_4 runs a subset (while developing; the totals then cover only those)
const only = process.env['NAM_ONLY']?.split(',');
const names = readdirSync(DIR).filter((f) => f.endsWith('.before.qasm')).map((f) => f.slice(0, -'.before.qasm'.length)).sort().filter((n) => !only || only.includes(n));
const load = (n: string, kind: string) => parseQasm(readFileSync(join(DIR, `${n}.${kind}.qasm`), 'utf8'));
const cx = (m: CircuitMetrics) => m.two_qubit;

interface Row {
  name: string;
  profile: Profile;
  m?: CircuitMetrics;
  ms: number;
  verified: boolean;
  method: string;
  timedOut: boolean;
  error?: string;
}
const rows: Row[] = [];
const nam: Record<string, { before: CircuitMetrics; light: CircuitMetrics; heavy: CircuitMetrics }> = {};

for (const name of names) {
  const input = load(name, 'before');
  nam[name] = { before: circuitMetrics(input), light: circuitMetrics(load(name, 'after_light')), heavy: circuitMetrics(load(name, 'after_heavy')) };
  for (const profile of PROFILES) {
    const t0 = performance.now();
    try {
      const r = optimizeCircuit(input, { profile, includeSteps: false });
      const ms = performance.now() - t0;
      const method =
        r.proof.methods
          .map((m) => m.method)
          .filter((m) => m !== 'certificate-replay')
          .join('+') || 'certificate';
      rows.push({ name, profile, m: r.metricsAfter, ms, verified: r.proof.verified, method: `replay+${method}`, timedOut: r.timedOut });
    } catch (e) {
      rows.push({ name, profile, ms: performance.now() - t0, verified: false, method: '-', timedOut: false, error: (e as Error).message });
    }
  }
}

const pad = (s: unknown, n: number) => String(s).padStart(n);
console.log(`${'circuit'.padEnd(16)}${pad('profile', 11)}${pad('total', 7)}${pad('cx', 6)}${pad('T', 6)}${pad('Td', 6)}${pad('ms', 8)}  ${'proof'.padEnd(24)}${pad('before', 8)}${pad('light', 7)}${pad('heavy', 7)}${pad('h.cx', 6)}${pad('h.T', 6)}`);
for (const r of rows) {
  const n = nam[r.name]!;
  const status = r.error ? `UNVERIFIED ${r.error.slice(0, 60)}` : `${r.verified ? 'verified' : 'NO'} ${r.method}${r.timedOut ? ' (timeout)' : ''}`;
  console.log(
    `${r.name.padEnd(16)}${pad(r.profile, 11)}${pad(r.m?.total ?? '-', 7)}${pad(r.m ? cx(r.m) : '-', 6)}${pad(r.m?.t_count ?? '-', 6)}${pad(r.m?.t_depth ?? '-', 6)}${pad(r.ms.toFixed(0), 8)}  ${status.padEnd(24)}${pad(n.before.total, 8)}${pad(n.light.total, 7)}${pad(n.heavy.total, 7)}${pad(cx(n.heavy), 6)}${pad(n.heavy.t_count, 6)}`,
  );
}

const of = (p: Profile) => rows.filter((r) => r.profile === p);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const total = (p: Profile) => sum(of(p).map((r) => r.m?.total ?? nam[r.name]!.before.total));
const tTotal = (p: Profile) => sum(of(p).map((r) => r.m?.t_count ?? nam[r.name]!.before.t_count));
const tDepthTotal = (p: Profile) => sum(of(p).map((r) => r.m?.t_depth ?? nam[r.name]!.before.t_depth));
const aggr = of('aggressive');
const balancedWorseThanLight = of('balanced')
  .filter((r) => !r.m || r.m.total > nam[r.name]!.light.total)
  .map((r) => r.name);
const aggrTWorse = aggr.filter((r) => !r.m || r.m.t_count > nam[r.name]!.heavy.t_count).map((r) => r.name);
const adder = aggr.find((r) => r.name === 'adder_8');
console.log(
  `balanced worse than Nam light: ${balancedWorseThanLight.join(', ') || 'none'}; aggressive T-count worse than Nam heavy: ${aggrTWorse.join(', ') || 'none'}; adder_8 aggressive: ${adder ? adder.ms.toFixed(0) : '-'} ms`,
);
console.log(
  JSON.stringify({
    bench: 'opt',
    circuits: names.length,
    outputs: rows.length,
    verified: rows.filter((r) => r.verified).length,
    balanced_total: total('balanced'),
    aggressive_total: total('aggressive'),
    balanced_t_total: tTotal('balanced'),
    aggressive_t_total: tTotal('aggressive'),
    nam_heavy_t_total: sum(names.map((n) => nam[n]!.heavy.t_count)),
    aggressive_t_depth_total: tDepthTotal('aggressive'),
    adder_8_aggressive_ms: adder ? Math.round(adder.ms) : null,
    nam_light_total: sum(names.map((n) => nam[n]!.light.total)),
    nam_heavy_total: sum(names.map((n) => nam[n]!.heavy.total)),
    beats_nam_heavy: aggr.filter((r) => r.m && r.m.total < nam[r.name]!.heavy.total).length,
    worse_than_nam_heavy: aggr.filter((r) => !r.m || r.m.total > nam[r.name]!.heavy.total).length,
  }),
);
