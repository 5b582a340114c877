import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS, expectProblem } from './input-bounds-entry-points.js';

/**
 * Issue #17, defect 1: declared sizes must never size an allocation before the limits are
 * applied. The requests run in a child process with a 256 MB heap, so a regression shows as a
 * failed test (the child aborts with "heap out of memory") rather than killing the runner.
 */
const CHILD = fileURLToPath(new URL('./input-bounds-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const G = 1_000_000_000;

const CASES: readonly { name: string; circuit: unknown; problems: readonly [code: string, path: string][] }[] = [
  { name: 'schema 0.1, 10^9 qubits, measure on the last', circuit: { version: '0.1', qubits: G, operations: [{ gate: 'measure', targets: [G - 1] }] }, problems: [['TOO_MANY_QUBITS', '/qubits']] },
  { name: 'schema 0.2, 10^9 qubits, a gate on the last', circuit: { schema: '0.2', num_qubits: G, gates: [{ op: 'h', qubits: [G - 1] }] }, problems: [['TOO_MANY_QUBITS', '/num_qubits']] },
  {
    name: 'schema 0.2, 10^9 qubits and clbits, a measurement on the last of each',
    circuit: { schema: '0.2', num_qubits: G, num_clbits: G, gates: [{ op: 'measure', qubits: [G - 1], clbits: [G - 1] }], measurements: [{ qubit: G - 2, clbit: G - 2 }] },
    problems: [
      ['TOO_MANY_QUBITS', '/num_qubits'],
      ['TOO_MANY_QUBITS', '/num_clbits'],
    ],
  },
  { name: 'schema 0.2, 2^53 qubits', circuit: { schema: '0.2', num_qubits: 2 ** 53, gates: [{ op: 'x', qubits: [2 ** 53 - 1] }] }, problems: [['TOO_MANY_QUBITS', '/num_qubits']] },
  {
    name: 'schema 0.2, 2 qubits, an index of 10^9',
    circuit: { schema: '0.2', num_qubits: 2, num_clbits: 1, gates: [{ op: 'cx', qubits: [0, G - 1] }], measurements: [{ qubit: 0, clbit: G - 1 }] },
    problems: [
      ['QUBIT_OUT_OF_RANGE', '/gates/0/qubits/1'],
      ['CLBIT_OUT_OF_RANGE', '/measurements/0/clbit'],
    ],
  },
  { name: 'OpenQASM 2, qreg and creg of 10^9', circuit: { format: 'qasm2', source: `OPENQASM 2.0;\nqreg q[${G}];\ncreg c[${G}];\nmeasure q -> c;` }, problems: [['TOO_MANY_QUBITS', '/source']] },
  { name: 'OpenQASM 3, qubit[2^32]', circuit: { format: 'qasm3', source: 'OPENQASM 3.0;\nqubit[4294967296] q;\nh q;' }, problems: [['TOO_MANY_QUBITS', '/source']] },
  {
    name: 'OpenQASM 2, a creg of 10^9 beside one qubit',
    circuit: { format: 'qasm2', source: `OPENQASM 2.0;\nqreg q[1];\ncreg c[${G}];\nmeasure q[0] -> c[${G - 1}];` },
    problems: [['TOO_MANY_QUBITS', '/source']],
  },
];

function runChild(circuits: readonly string[], mode = 'http'): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', CHILD], {
      cwd: ROOT,
      env: { ...process.env, QRAIL_IB_CIRCUITS: JSON.stringify(circuits), QRAIL_IB_MODE: mode },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('defect 1: no allocation sized by a declared number, at any entry point', () => {
  it('every hostile size is a 400 (validate: valid=false) with its code and path, and the process survives', async () => {
    const run = await runChild(CASES.map((c) => JSON.stringify(c.circuit)));
    expect({ code: run.code, signal: run.signal }, run.stderr.slice(-2000)).toEqual({ code: 0, signal: null });
    const results = JSON.parse(run.stdout.trim().split('\n').pop()!) as { circuit: number; entry: string; status: number; body: string }[];
    expect(results).toHaveLength(CASES.length * ENTRY_POINTS.length);
    for (const r of results) {
      const c = CASES[r.circuit]!;
      const ep = ENTRY_POINTS.find((e) => e.name === r.entry)!;
      for (const [code, path] of c.problems) expectProblem(ep, { statusCode: r.status, body: r.body }, code, path);
    }
  });

  it('circuitDepth of an IR declaring 10^9 wires, used on the last one, allocates by the operations only', async () => {
    const run = await runChild([], 'depth');
    expect({ code: run.code, signal: run.signal }, run.stderr.slice(-2000)).toEqual({ code: 0, signal: null });
    expect(JSON.parse(run.stdout.trim())).toBe(2);
  });
});
