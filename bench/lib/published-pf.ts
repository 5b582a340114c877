/**
 * Nam et al.'s product-formula circuits (tests/fixtures/benchmarks/nam-pf): one Trotter step of the
 * 1D Heisenberg chain as they published it, and their own optimized output counted per block.
 * Their outputs are blocks repeated over the whole evolution — PF1: the optimized step S1 itself,
 * PF2/PF4: L·C^(k−2)·R for k steps (C merges the half-steps two neighbouring steps share) — so the
 * like-for-like comparison is the same k steps on both sides, counted in Nam's gate set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { circuit, type Circuit } from '../../src/circuits/ir.js';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';

interface Counts {
  readonly h: number;
  readonly rz: number;
  readonly x: number;
  readonly cx: number;
  readonly total: number;
}
interface Entry {
  readonly qubits: number;
  readonly order: number;
  readonly step_before: Counts;
  readonly after_calls: readonly { readonly block: string; readonly times: number }[];
  readonly after_blocks: Readonly<Record<string, Counts>>;
}

export interface PublishedPf {
  readonly name: string;
  readonly qubits: number;
  readonly order: number;
  /** The published input: one step. */
  readonly step: Circuit;
  /** Nam's optimized gate count for `k` consecutive steps (k ≥ 2 for PF2/PF4, whose blocks span a step boundary). */
  namGates(k: number): number;
}

/** Nam's total for k steps from the call structure of their output (S·S·… or L·C·…·C·R). */
function namGatesFor(e: Entry, k: number): number {
  const size = (b: string) => e.after_blocks[b]!.total;
  const calls = e.after_calls;
  if (calls.length === 1) return k * size(calls[0]!.block);
  if (calls.length === 3 && k >= 2) return size(calls[0]!.block) + (k - 2) * size(calls[1]!.block) + size(calls[2]!.block);
  throw new Error(`no published figure for ${k} step(s) of this block structure`);
}

export function loadPublishedPf(dir: string): PublishedPf[] {
  const table = JSON.parse(readFileSync(join(dir, 'published.json'), 'utf8')) as { circuits: Record<string, Entry> };
  return Object.entries(table.circuits).map(([name, e]) => {
    const step = parseQasm(readFileSync(join(dir, `${name}.step.qasm`), 'utf8'));
    if (step.ops.length !== e.step_before.total) throw new Error(`${name}: ${step.ops.length} gates, the table says ${e.step_before.total}`);
    return { name, qubits: e.qubits, order: e.order, step, namGates: (k: number) => namGatesFor(e, k) };
  });
}

/** k consecutive copies of one step. */
export function repeatSteps(step: Circuit, k: number): Circuit {
  return circuit(step.numQubits, 0, Array.from({ length: k }, () => step.ops).flat());
}
