/**
 * Translation of a circuit to a device: place and route it on the coupling map (SABRE,
 * src/routing/sabre.ts), then rewrite every gate into the device's native gates (the optimizer's
 * proven templates, src/optimization/passes/translate.ts). The result acts on the device's
 * physical qubits; the layouts say where each circuit qubit started and ended.
 *
 * Where the size allows, the translation is checked by src/verification's independent
 * equivalence checker: the submitted circuit, placed by the initial layout and followed by
 * the permutation the SWAPs made, must equal the translated circuit up to global phase.
 * A translation proven wrong is never run (fail closed); one the checker cannot decide in
 * its budget runs with `verification.equivalent: "unknown"` stated.
 */
import type { Circuit, GateOp, Operation } from '../../circuits/ir.js';
import { circuit, conditioned, gate, measure, opQubits, reset } from '../../circuits/ir.js';
import { fail, isAppError } from '../../errors/app-error.js';
import { Recorder } from '../../optimization/recorder.js';
import { decomposeMultiQubit, translateGates } from '../../optimization/passes/translate.js';
import { OPTIMIZATION_ERRORS } from '../../optimization/error-codes.js';
import { verifyEquivalence } from '../../verification/verify-equivalence.js';
import type { DeviceSpec } from '../../devices/device-catalogue.js';
import { EXECUTION_ERRORS } from '../error-codes.js';
import { sabreRoute } from '../../routing/sabre.js';

export interface TranslationVerification {
  readonly equivalent: true | 'unknown' | 'skipped';
  readonly method: string;
  readonly checked: string;
  readonly reason?: string;
}

export interface Translation {
  /** The circuit on the device's physical qubits, native gates only. */
  readonly circuit: Circuit;
  /** Circuit qubit → physical qubit before the first gate. */
  readonly initialLayout: Readonly<Record<number, number>>;
  /** Circuit qubit → physical qubit after the last gate (where it is measured). */
  readonly finalLayout: Readonly<Record<number, number>>;
  readonly swapsInserted: number;
  readonly gatesBefore: number;
  readonly gatesAfter: number;
  readonly twoQubitGatesAfter: number;
  readonly verification: TranslationVerification;
}

export interface TranslateOptions {
  /** Budget of the equivalence check (default 2000 ms). */
  readonly verifyBudgetMs?: number;
  /** Above this many physical qubits touched the check is skipped (default 16). */
  readonly maxVerifyQubits?: number;
  /** Above this many gates the check is skipped (default 4000). */
  readonly maxVerifyGates?: number;
}

const untranslatable = (message: string, details: Record<string, unknown>) => fail(EXECUTION_ERRORS.EXECUTION_TRANSLATION_FAILED, message, details);

/** Ops renumbered through `map` (old qubit index → new). */
function relabel(ops: readonly Operation[], map: (q: number) => number): Operation[] {
  return ops.map((op) => {
    switch (op.kind) {
      case 'gate':
        return gate(op.name, op.qubits.map(map), op.params);
      case 'barrier':
        return { kind: 'barrier', qubits: op.qubits.map(map) };
      case 'measure':
        return measure(map(op.qubit), op.clbit);
      case 'reset':
        return reset(map(op.qubit));
      case 'conditioned':
        return conditioned(gate(op.gate.name, op.gate.qubits.map(map), op.gate.params), op.condition);
    }
  });
}

/**
 * A conditioned gate in native gates: its gate translated alone, each resulting gate under the same
 * condition (gates write no clbits, so the condition reads the same bits for all of them).
 */
function nativeConditioned(ops: readonly Operation[], native: ReadonlySet<string>): Operation[] {
  return ops.flatMap((op): Operation[] => {
    if (op.kind !== 'conditioned') return [op];
    const rec = new Recorder([op.gate]);
    decomposeMultiQubit(rec, native);
    translateGates(rec, native);
    return rec.ops.map((g) => conditioned(g as GateOp, op.condition));
  });
}

function checkSupport(c: Circuit, d: DeviceSpec, used: readonly number[]): void {
  if (used.length > d.numQubits) {
    throw untranslatable(`The circuit uses ${used.length} qubits; ${d.id} has ${d.numQubits}.`, { device: d.id, qubits_used: used.length, device_qubits: d.numQubits });
  }
  const lastOp = new Map<number, number>();
  c.ops.forEach((op, i) => {
    if (op.kind !== 'barrier') for (const q of opQubits(op)) lastOp.set(q, i);
  });
  // first, before the mid-circuit checks: a dynamic circuit measures mid-circuit too, and this is the reason to give
  const dynamicAt = d.supportsDynamicCircuits ? -1 : c.ops.findIndex((op) => op.kind === 'conditioned');
  if (dynamicAt >= 0) {
    const op = c.ops[dynamicAt]!;
    const name = op.kind === 'conditioned' ? op.gate.name : op.kind;
    throw fail(EXECUTION_ERRORS.DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED, `${d.id} cannot run dynamic circuits (operation ${dynamicAt} is a ${name} conditioned on measured bits).`, {
      device: d.id,
      op_index: dynamicAt,
    });
  }
  c.ops.forEach((op, i) => {
    if (op.kind === 'reset' && !d.supportsReset) throw untranslatable(`${d.id} does not support reset.`, { device: d.id, op_index: i });
    if (op.kind === 'measure' && !d.supportsMidCircuitMeasurement && lastOp.get(op.qubit) !== i) {
      throw untranslatable(`${d.id} does not support mid-circuit measurement (qubit ${op.qubit} is used after it is measured).`, { device: d.id, op_index: i });
    }
  });
}

/**
 * SABRE on the device's healthy part: qubits the provider reports faulty are left out (their
 * pairs are already absent from the coupling map), the rest renumbered 0…h−1 for the router and
 * back to physical numbers after. A circuit that does not fit the healthy qubits, or whose
 * entangled qubits are only connected through faulty parts, is refused naming them.
 */
function routeOnHealthy(ops: readonly Operation[], k: number, d: DeviceSpec, coupling: readonly (readonly [number, number])[]) {
  const faultyQubits = d.faultyQubits ?? [];
  const faultyEdges = d.faultyEdges ?? [];
  const faulty = new Set(faultyQubits);
  const healthy = Array.from({ length: d.numQubits }, (_, q) => q).filter((q) => !faulty.has(q));
  const compact = new Map(healthy.map((q, i) => [q, i]));
  const edges = coupling.filter(([a, b]) => compact.has(a) && compact.has(b)).map(([a, b]) => [compact.get(a)!, compact.get(b)!] as [number, number]);
  const named = () => {
    const parts = [...faultyQubits.map((q) => `qubit ${q}`), ...faultyEdges.map(([a, b]) => `pair ${a}–${b}`)];
    return parts.length === 0 ? 'none' : parts.join(', ');
  };
  const refuse = (why: string) =>
    fail(EXECUTION_ERRORS.EXECUTION_FAULTY_QUBITS, `${why} on ${d.id}: the provider reports faulty ${named()}, which are never used.`, {
      device: d.id,
      faulty_qubits: faultyQubits,
      faulty_edges: faultyEdges.map(([a, b]) => [a, b]),
      healthy_qubits: healthy.length,
      qubits_used: k,
    });
  const anyFaulty = faultyQubits.length > 0 || faultyEdges.length > 0;
  if (k > healthy.length) throw refuse(`The circuit needs ${k} qubits and only ${healthy.length} are healthy`);
  let routed;
  try {
    routed = sabreRoute(ops, k, healthy.length, edges);
  } catch (e) {
    if (anyFaulty) throw refuse(`The circuit cannot be routed without faulty parts (${(e as Error).message})`);
    throw untranslatable(`Routing on ${d.id} failed: ${(e as Error).message}.`, { device: d.id });
  }
  if (!anyFaulty) return routed;
  const phys = (i: number) => healthy[i]!;
  return { ...routed, ops: relabel(routed.ops, phys), initialLayout: routed.initialLayout.map(phys), finalLayout: routed.finalLayout.map(phys) };
}

/** SWAPs moving the content of physical `from[v]` to `to[v]` for every v. */
function permutationSwaps(from: readonly number[], to: readonly number[]): Operation[] {
  const cur = [...from];
  const out: Operation[] = [];
  for (let v = 0; v < cur.length; v++) {
    const target = to[v]!;
    if (cur[v] === target) continue;
    const u = cur.indexOf(target);
    out.push(gate('swap', [cur[v]!, target]));
    cur[u] = cur[v]!;
    cur[v] = target;
  }
  return out;
}

function verify(reference: readonly Operation[], translated: readonly Operation[], o: Required<TranslateOptions>): TranslationVerification {
  const unitary = (ops: readonly Operation[]) => ops.filter((op) => op.kind === 'gate');
  if (translated.some((op) => op.kind === 'reset') || reference.some((op) => op.kind === 'reset')) {
    return { equivalent: 'skipped', method: 'none', checked: 'nothing', reason: 'the circuit resets qubits; only unitary circuits are checked' };
  }
  if (translated.some((op) => op.kind === 'conditioned') || reference.some((op) => op.kind === 'conditioned')) {
    return { equivalent: 'skipped', method: 'none', checked: 'nothing', reason: 'the circuit is dynamic (conditioned gates); only unitary circuits are checked' };
  }
  const a = unitary(reference);
  const b = unitary(translated);
  const touched = [...new Set([...a, ...b].flatMap((op) => opQubits(op)))].sort((x, y) => x - y);
  if (touched.length > o.maxVerifyQubits || a.length + b.length > o.maxVerifyGates) {
    return {
      equivalent: 'skipped',
      method: 'none',
      checked: 'nothing',
      reason: `too large to check (${touched.length} qubits, ${a.length + b.length} gates; limits ${o.maxVerifyQubits} qubits, ${o.maxVerifyGates} gates)`,
    };
  }
  if (touched.length === 0) return { equivalent: true, method: 'structure', checked: 'no gates on either side' };
  const idx = new Map(touched.map((q, i) => [q, i]));
  const compact = (ops: readonly Operation[]) =>
    circuit(
      touched.length,
      0,
      relabel(ops, (q) => idx.get(q)!),
    );
  const r = verifyEquivalence(compact(a), compact(b), { timeBudgetMs: o.verifyBudgetMs });
  if (r.equivalent === false) {
    throw fail(EXECUTION_ERRORS.EXECUTION_TRANSLATION_UNVERIFIED, 'The translated circuit is not equivalent to the submitted one; nothing was run.', { method: r.method, reason: r.reason ?? null });
  }
  return { equivalent: r.equivalent, method: r.method, checked: r.checked, ...(r.reason === undefined ? {} : { reason: r.reason }) };
}

export function translateForDevice(c: Circuit, d: DeviceSpec, opts: TranslateOptions = {}): Translation {
  const o: Required<TranslateOptions> = { verifyBudgetMs: opts.verifyBudgetMs ?? 2_000, maxVerifyQubits: opts.maxVerifyQubits ?? 16, maxVerifyGates: opts.maxVerifyGates ?? 4_000 };
  const p = d.numQubits;
  const used = [...new Set(c.ops.flatMap((op) => opQubits(op)))].sort((x, y) => x - y);
  checkSupport(c, d, used);
  const native = new Set(d.nativeGates);
  // Virtual qubits: the circuit's own when they fit, else only the ones it uses, in order.
  const logical = c.numQubits <= p ? Array.from({ length: c.numQubits }, (_, q) => q) : used;
  const virtualOf = new Map(logical.map((q, v) => [q, v]));
  const gatesBefore = c.ops.filter((op) => op.kind === 'gate').length;

  try {
    // Terminal measurements leave the routing: they are placed after every gate, on each
    // qubit's final position, so a later SWAP never turns them into mid-circuit measurements.
    const virtualOps = relabel(c.ops, (q) => virtualOf.get(q)!);
    const lastOp = new Map<number, number>();
    virtualOps.forEach((op, i) => {
      if (op.kind !== 'barrier') for (const q of opQubits(op)) lastOp.set(q, i);
    });
    // a measurement whose bit a later conditioned gate reads is not terminal: it must stay before that gate
    const lastRead = new Map<number, number>();
    virtualOps.forEach((op, i) => {
      if (op.kind === 'conditioned') for (const b of op.condition.clbits) lastRead.set(b, i);
    });
    const isTerminal = (op: Operation, i: number) => op.kind === 'measure' && lastOp.get(op.qubit) === i && (lastRead.get(op.clbit) ?? -1) < i;
    const terminal = virtualOps.filter(isTerminal);
    const pre = new Recorder(
      nativeConditioned(
        virtualOps.filter((op, i) => !isTerminal(op, i)),
        native,
      ),
    );
    decomposeMultiQubit(pre, native);
    let physical: Operation[];
    let initial: number[];
    let final: number[];
    let swaps = 0;
    if (d.couplingMap === null) {
      initial = Array.from({ length: p }, (_, v) => v);
      final = initial;
      physical = pre.ops;
    } else {
      ({ ops: physical, initialLayout: initial, finalLayout: final, swaps } = routeOnHealthy(pre.ops, logical.length, d, d.couplingMap));
    }
    const rec = new Recorder(physical);
    translateGates(rec, native);
    const measures = relabel(terminal, (v) => final[v]!);
    const out = circuit(p, c.numClbits, [...rec.ops, ...measures], c.metadata);
    // Reference: the submitted ops placed by the initial layout, then the SWAPs' permutation.
    const reference = [...relabel(pre.ops, (v) => initial[v]!), ...permutationSwaps(initial, final)];
    const verification = verify(reference, rec.ops, o);
    const layout = (l: readonly number[]) => Object.fromEntries(logical.map((q, v) => [q, l[v]!]));
    const gatesAfter = rec.ops.filter((op) => op.kind === 'gate');
    return {
      circuit: out,
      initialLayout: layout(initial),
      finalLayout: layout(final),
      swapsInserted: swaps,
      gatesBefore,
      gatesAfter: gatesAfter.length,
      twoQubitGatesAfter: gatesAfter.filter((op) => op.qubits.length === 2).length,
      verification,
    };
  } catch (e) {
    if (isAppError(e) && e.code === OPTIMIZATION_ERRORS.OPTIMIZATION_TARGET_UNSUPPORTED.code) throw untranslatable(e.message, { device: d.id, ...(e.details as object) });
    throw e;
  }
}
