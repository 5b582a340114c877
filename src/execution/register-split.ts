/**
 * Hardware results keyed like the simulator's (docs/workloads.md#classical-registers): with two
 * classical registers or more (`splitsCounts`, the rule's one owner) counts and per-shot memory
 * are split by register — "1 0", the last declared leftmost — and `registers` gives the layout.
 * Drivers of hardware (emulated devices, IBM, IonQ) all report plain clbit strings over the
 * translated circuit's clbits, which keep the submitted circuit's numbering; the worker applies
 * this once to whatever a driver returned, so every hardware path answers the same shape.
 */
import { splitsCounts, type ClassicalRegister } from '../circuits/ir.js';
import { registerKey } from '../simulation/index.js';
import type { RunResult } from './drivers/driver.js';

/** The classical registers of a stored wire-format circuit (schema 0.2 `registers`), when it declares them. */
export function storedRegisters(wire: unknown): readonly ClassicalRegister[] | undefined {
  if (typeof wire !== 'object' || wire === null) return undefined;
  const regs = (wire as { registers?: unknown }).registers;
  if (!Array.isArray(regs)) return undefined;
  const out: ClassicalRegister[] = [];
  for (const r of regs) {
    if (typeof r !== 'object' || r === null) return undefined;
    const { name, size } = r as { name?: unknown; size?: unknown };
    if (typeof name !== 'string' || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return undefined;
    out.push({ name, size });
  }
  return out;
}

function rekey(m: Readonly<Record<string, number>>, registers: readonly ClassicalRegister[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(m)) {
    const key = registerKey(k, registers);
    out[key] = (out[key] ?? 0) + v;
  }
  return out;
}

/** A driver's result with counts and memory split by register; unchanged with fewer than two registers or when already split. */
export function splitByRegisters(r: RunResult, registers: readonly ClassicalRegister[] | undefined): RunResult {
  if (!splitsCounts(registers) || r.extra?.['registers'] !== undefined) return r;
  const width = registers.reduce((a, g) => a + g.size, 0);
  // Keys of another width (never expected: a driver over other clbits) are left as they are rather than cut wrongly.
  if (Object.keys(r.counts).some((k) => k.length !== width)) return r;
  const memory = r.extra?.['memory'];
  return {
    ...r,
    counts: rekey(r.counts, registers),
    extra: {
      ...(r.extra ?? {}),
      ...(Array.isArray(memory) ? { memory: (memory as unknown[]).map((b) => (typeof b === 'string' && b.length === width ? registerKey(b, registers) : b)) } : {}),
      registers: registers.map((g) => ({ name: g.name, size: g.size })),
    },
  };
}
