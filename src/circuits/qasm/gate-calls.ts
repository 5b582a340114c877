/**
 * Kept user gate calls (export with `inline_gates: false`): which of a circuit's recorded calls
 * still equal their expansion. The ops are the truth; a call is only a shorter spelling of a span
 * of them, so a call is kept exactly when the importer, expanding it from the kept definitions,
 * gives the very ops of its span. After a rewrite (optimization) a span is looked up where it was,
 * shifted like the previous kept call, then up to SEARCH_WINDOW ops either side, nearest first (a
 * rewrite before it moves it); calls whose ops changed are dropped.
 */
import { withGateCalls, type Circuit, type GateCall, type Operation } from '../ir.js';
import { formatParamExpr } from '../param-expr.js';
import { callText, definitionText } from './gate-definition-text.js';
import { parseQasm } from './parse-qasm.js';

/** The circuit with only the calls that equal their spans (moved where the ops moved), and how many were dropped. */
export function reconcileGateCalls(c: Circuit): { circuit: Circuit; dropped: number } {
  const calls = c.gateCalls ?? [];
  if (calls.length === 0) return { circuit: c, dropped: 0 };
  const expansions = expand(c);
  const kept: GateCall[] = [];
  let cursor = 0;
  let shift = 0;
  calls.forEach((k, i) => {
    const want = expansions?.[i];
    if (want === undefined) return;
    for (const at of nearby(k.start + shift, cursor)) {
      if (at + want.length > c.ops.length || !want.every((op, j) => sameOp(op, c.ops[at + j]!))) continue;
      kept.push({ ...k, start: at, count: want.length });
      cursor = at + want.length;
      shift = at - k.start;
      return;
    }
  });
  if (kept.length === calls.length && kept.every((k, i) => k.start === calls[i]!.start && k.count === calls[i]!.count)) return { circuit: c, dropped: 0 };
  return { circuit: withGateCalls(c, kept), dropped: calls.length - kept.length };
}

/** How far from its expected place a call's span is looked for: bounds the work to 2·64+1 tries per call. */
const SEARCH_WINDOW = 64;

/** Positions from `expected` outwards (expected, +1, -1, +2, …), none before `cursor`. */
function* nearby(expected: number, cursor: number): Generator<number> {
  for (let d = 0; d <= SEARCH_WINDOW; d++) {
    if (expected + d >= cursor) yield expected + d;
    if (d > 0 && expected - d >= cursor) yield expected - d;
  }
}

/**
 * Each call's expansion, by the importer itself: the kept definitions and the calls as one program.
 * Undefined when that program does not import (definitions sent in JSON that do not parse, calls
 * expanding past the circuit's own size): then no call is kept.
 */
function expand(c: Circuit): (readonly Operation[])[] | undefined {
  const calls = c.gateCalls ?? [];
  const lines = ['OPENQASM 3.0;', 'include "stdgates.inc";', ...(c.gateDefinitions ?? []).map(definitionText), `qubit[${c.numQubits}] q;`];
  for (const k of calls) lines.push(callText(k, (q) => `q[${q}]`));
  try {
    // The recorded spans are disjoint (checked on import and in the wire format), so calls expanding to
    // more ops than they add up to are not these calls; an optimized circuit may have fewer ops, and
    // calls of empty gates none (the importer records and expands at most maxOps calls).
    const recorded = calls.reduce((n, k) => n + k.count, 0);
    const probe = parseQasm(lines.join('\n'), { maxQubits: c.numQubits, maxOps: Math.max(recorded, c.ops.length, calls.length) + 1, keepGateDefinitions: true });
    const spans = probe.gateCalls ?? [];
    if (spans.length !== calls.length) return undefined;
    return spans.map((s) => probe.ops.slice(s.start, s.start + s.count));
  } catch {
    return undefined;
  }
}

/** Exact equality of two operations (parameters bit for bit, symbolic ones by their spelling). */
export function sameOp(a: Operation, b: Operation): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'gate': {
      const g = b as typeof a;
      if (a.name !== g.name || !sameNumbers(a.qubits, g.qubits) || a.params.length !== g.params.length) return false;
      return a.params.every((p, i) => {
        const ea = a.exprs?.[i] ?? null;
        const eb = g.exprs?.[i] ?? null;
        if (ea !== null || eb !== null) return ea !== null && eb !== null && formatParamExpr(ea) === formatParamExpr(eb);
        return p === g.params[i];
      });
    }
    case 'measure':
      return a.qubit === (b as typeof a).qubit && a.clbit === (b as typeof a).clbit;
    case 'reset':
      return a.qubit === (b as typeof a).qubit;
    case 'barrier':
      return sameNumbers(a.qubits, (b as typeof a).qubits);
    case 'conditioned': {
      const k = b as typeof a;
      return a.condition.value === k.condition.value && sameNumbers(a.condition.clbits, k.condition.clbits) && sameOp(a.gate, k.gate);
    }
  }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
