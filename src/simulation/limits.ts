/** Limits of a simulation run and the checks that enforce them (before allocating). */
import { fail } from '../errors/app-error.js';
import { SIMULATION_ERRORS } from './error-codes.js';
import type { BudgetCheck } from './plan.js';

export const DEFAULT_MAX_QUBITS = 28;
/** Hard ceiling: kernels use 32-bit index arithmetic. */
export const HARD_MAX_QUBITS = 30;
/** 2^28 amplitudes × 16 bytes = 4 GiB, plus room for buffers and sampling. */
export const DEFAULT_MAX_MEMORY_BYTES = 4 * 1024 ** 3 + 512 * 1024 ** 2;
export const DEFAULT_TIME_BUDGET_MS = 120_000;
export const MAX_SHOTS = 10_000_000;

const invalid = (option: string, message: string): never => {
  throw fail(SIMULATION_ERRORS.SIMULATION_INVALID_OPTIONS, message, [{ path: `/${option}`, code: 'OUT_OF_RANGE', message }]);
};

export function checkInteger(option: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) invalid(option, `${option} must be an integer from ${min} to ${max}, got ${v}`);
  return v;
}

export function checkPositive(option: string, v: number): number {
  if (!(typeof v === 'number' && v > 0 && Number.isFinite(v))) invalid(option, `${option} must be a positive finite number, got ${v}`);
  return v;
}

export function checkQubits(n: number, maxQubits: number): void {
  if (n > maxQubits) throw fail(SIMULATION_ERRORS.SIMULATION_TOO_MANY_QUBITS, `the circuit has ${n} qubits; the simulator limit is ${maxQubits} qubits`, { num_qubits: n, max_qubits: maxQubits });
}

export function checkMemory(neededBytes: number, limitBytes: number, what: string): void {
  if (neededBytes > limitBytes)
    throw fail(SIMULATION_ERRORS.SIMULATION_MEMORY_LIMIT, `${what} needs ${neededBytes} bytes; the memory limit is ${limitBytes} bytes`, { needed_bytes: neededBytes, limit_bytes: limitBytes });
}

/** A deadline check that reads the clock only when called (callers call it per block or per batch of work). */
export function deadlineCheck(budgetMs: number, start: number = performance.now()): BudgetCheck {
  const deadline = start + budgetMs;
  return () => {
    if (performance.now() > deadline)
      throw fail(SIMULATION_ERRORS.SIMULATION_TIME_BUDGET_EXCEEDED, `the simulation did not finish within its time budget of ${budgetMs} ms`, { time_budget_ms: budgetMs });
  };
}
