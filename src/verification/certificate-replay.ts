import { circuit, type Circuit, type GateOp, type Operation } from '../circuits/ir.js';
import { commutes, ruleById } from './certificate-rules.js';
import { isGlobalRule, PAULI_ROTATIONS_RULE, PHASE_TELEPORT_RULE, REORDER_RULE, WIDEN_RULE, type Certificate, type CertificateStep } from './certificate-types.js';
import { CERTIFICATE_BUDGET } from './numeric-policy.js';
import { checkPhaseTeleport } from './phase-teleport-check.js';
import { checkPauliRotations } from './pauli-rotation-check.js';

/**
 * The certificate replayer: replays the recorded rewrite steps on the original circuit
 * using only the IR and the proven rule library (`certificate-rules.ts`), and checks that
 * the result is exactly the claimed output. It shares no code with the passes.
 */
export type ReplayResult =
  | {
      readonly ok: true;
      readonly output: Circuit;
      readonly localSteps: number;
      readonly globalSteps: number;
      readonly globalRules: readonly string[];
      /** Sum of the local steps' numeric deviations (operator norm, up to phase); at most CERTIFICATE_BUDGET. */
      readonly deviation: number;
      /** The circuit as it stood before step `snapshotBefore` (when asked for). */
      readonly snapshot?: Circuit;
      /** The part of `deviation` from the steps at and after `snapshotBefore` (0 without a snapshot). */
      readonly deviationAfterSnapshot: number;
    }
  | { readonly ok: false; readonly reason: string; readonly stepIndex?: number };

export function sameOp(a: Operation, b: Operation): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'gate': {
      const g = b as GateOp;
      return (
        a.name === g.name && a.qubits.length === g.qubits.length && a.qubits.every((q, i) => q === g.qubits[i]) && a.params.length === g.params.length && a.params.every((p, i) => p === g.params[i])
      );
    }
    case 'conditioned': {
      if (b.kind !== 'conditioned' || !sameOp(a.gate, b.gate) || a.condition.value !== b.condition.value) return false;
      const [x, y] = [a.condition.clbits, b.condition.clbits];
      return x.length === y.length && x.every((c, i) => c === y[i]);
    }
    case 'measure':
      return b.kind === 'measure' && a.qubit === b.qubit && a.clbit === b.clbit;
    case 'reset':
      return b.kind === 'reset' && a.qubit === b.qubit;
    case 'barrier':
      return b.kind === 'barrier' && a.qubits.length === b.qubits.length && a.qubits.every((q, i) => q === b.qubits[i]);
  }
}

/** Wires (qubits as q<i>, clbits as c<i>) an op touches: ops on disjoint wires commute. */
function wiresOf(op: Operation): string[] {
  switch (op.kind) {
    case 'gate':
    case 'barrier':
      return op.qubits.map((q) => `q${q}`);
    case 'measure':
      return [`q${op.qubit}`, `c${op.clbit}`];
    case 'reset':
      return [`q${op.qubit}`];
    case 'conditioned':
      // the bits it reads are wires too: it stays after the measurement writing them and before the next
      return [...op.gate.qubits.map((q) => `q${q}`), ...op.condition.clbits.map((c) => `c${c}`)];
  }
}

/** Why a `reorder` step is not an instance (see CertificateStep.order), or undefined. */
function reorderProblem(ops: readonly Operation[], step: CertificateStep): string | undefined {
  const order = step.order;
  if (
    !order ||
    step.positions.length ||
    step.replaced.length ||
    step.inserted.length ||
    step.insertAt !== undefined ||
    step.anchor !== undefined ||
    step.inPlace !== undefined ||
    step.witness !== undefined ||
    step.span !== undefined ||
    step.numQubits !== undefined
  ) {
    return 'a reorder step carries only an order';
  }
  if (order.length !== ops.length) return 'the order is not a permutation of the op list';
  const seen = new Uint8Array(ops.length);
  for (const i of order) {
    if (!Number.isInteger(i) || i < 0 || i >= ops.length || seen[i]) return 'the order is not a permutation of the op list';
    seen[i] = 1;
  }
  // on every wire, the ops touching it must come in their original order
  const last = new Map<string, number>();
  for (const i of order) {
    for (const w of wiresOf(ops[i]!)) {
      if ((last.get(w) ?? -1) > i) return `op ${i} moves past an earlier op on wire ${w}`;
      last.set(w, i);
    }
  }
  return undefined;
}

/** Why a `widen` step is not an instance (see CertificateStep.numQubits), or undefined. */
function widenProblem(step: CertificateStep, width: number): string | undefined {
  const only = !step.positions.length && !step.replaced.length && !step.inserted.length && step.insertAt === undefined && step.anchor === undefined;
  if (!only || step.inPlace !== undefined || step.witness !== undefined || step.span !== undefined) return 'a widen step carries only numQubits';
  const n = step.numQubits;
  if (n === undefined || !Number.isInteger(n) || n < width || n > MAX_WIDTH) return `numQubits must be an integer from ${width} to ${MAX_WIDTH}`;
  return undefined;
}

/** The most qubits a widen step may give (far above any device of the catalogue). */
const MAX_WIDTH = 1024;

/** A problem (string), or the step's numeric deviation (0 for exact and global steps). */
function checkStep(ops: Operation[], step: CertificateStep, numQubits: number): string | number {
  const { positions, replaced, inserted } = step;
  if (step.anchor !== undefined && step.anchor !== 'first' && step.anchor !== 'last') return 'unknown anchor';
  if (step.insertAt !== undefined) {
    if (!isGlobalRule(step.rule)) return 'only global steps may give insertAt';
    if (!Number.isInteger(step.insertAt) || step.insertAt < 0 || step.insertAt > ops.length || positions.includes(step.insertAt)) return 'insertAt is out of range';
  } else if (positions.length === 0) return 'a step must match at least one op';
  if (positions.length !== replaced.length) return 'positions and replaced ops differ in length';
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    if (!Number.isInteger(p) || p < 0 || p >= ops.length) return `position ${p} is out of range`;
    if (i > 0 && p <= positions[i - 1]!) return 'positions are not strictly increasing';
    if (!sameOp(ops[p]!, replaced[i]!)) return `op at position ${p} is not the recorded op`;
  }
  // a conditioned gate is a barrier on its qubits: no step rewrites it (it may only be reordered)
  if (replaced.some((o) => o.kind === 'conditioned')) return 'a step matched a conditioned gate';
  for (const g of inserted) {
    if (g.kind !== 'gate' || g.qubits.some((q) => !Number.isInteger(q) || q < 0 || q >= numQubits)) return 'an inserted op is not a gate on the circuit';
  }
  if (step.rule === PHASE_TELEPORT_RULE) return checkPhaseTeleport(ops, step);
  if (step.rule === PAULI_ROTATIONS_RULE) return checkPauliRotations(step);
  if (step.inPlace !== undefined || step.witness !== undefined || step.span !== undefined) return `rule ${step.rule} does not rewrite in place`;
  if (isGlobalRule(step.rule)) return 0;
  const rule = ruleById(step.rule);
  if (!rule) return `rule ${step.rule} is not in the proven rule library`;
  if (replaced.some((o) => o.kind !== 'gate')) return 'a local rule matched a non-gate op';
  // gathering: each matched op must commute with the unmatched ops it moves past (a contiguous
  // match moves past nothing: positions are strictly increasing, so first..last holds only matched ops)
  const first = positions[0]!;
  const last = positions[positions.length - 1]!;
  const contiguous = last - first + 1 === positions.length;
  for (const p of contiguous ? [] : positions) {
    const op = ops[p]!;
    const [lo, hi] = step.anchor === 'last' ? [p + 1, last] : [first + 1, p];
    // the matched positions met on the way, followed in order (they are strictly increasing)
    let m = 0;
    for (let k = lo; k < hi; k++) {
      while (m < positions.length && positions[m]! < k) m++;
      if (positions[m] === k) continue;
      if (!commutes(op, ops[k]!)) return `matched op at ${p} does not commute with op at ${k}`;
    }
  }
  if (!rule.check(replaced as GateOp[], inserted)) return `the step is not an instance of rule ${step.rule}`;
  return rule.deviation ? rule.deviation(replaced as GateOp[], inserted) : 0;
}

/** Applies a splice step in place (native splices: a step costs a memmove, not a rebuilt list). */
function splice(ops: Operation[], step: CertificateStep): Operation[] {
  const { positions } = step;
  const at = step.insertAt ?? (step.anchor === 'last' ? positions[positions.length - 1]! : positions[0]!);
  let removedBefore = 0;
  for (let k = positions.length - 1; k >= 0; k--) {
    ops.splice(positions[k]!, 1);
    if (positions[k]! < at) removedBefore++;
  }
  // the new ops go where the anchor was: after every kept op that stood before it
  if (step.inserted.length) ops.splice(at - removedBefore, 0, ...step.inserted);
  return ops;
}

function rewriteInPlace(ops: readonly Operation[], positions: readonly number[], inPlace: readonly (GateOp | null)[]): Operation[] {
  const at = new Map<number, GateOp | null>();
  positions.forEach((p, i) => at.set(p, inPlace[i]!));
  const next: Operation[] = [];
  for (let i = 0; i < ops.length; i++) {
    const r = at.get(i);
    if (r === undefined) next.push(ops[i]!);
    else if (r !== null) next.push(r);
  }
  return next;
}

/** `snapshotBefore: k` also returns the circuit as it stood before step k (in the same pass). */
export function replayCertificate(original: Circuit, certificate: Certificate, claimed?: Circuit, opts: { snapshotBefore?: number | undefined } = {}): ReplayResult {
  let ops: Operation[] = [...original.ops];
  // the register width: a `widen` step adds idle wires (U on the old ones is U ⊗ I on the new)
  let width = original.numQubits;
  let snapshot: Circuit | undefined;
  let atSnapshot = 0;
  let localSteps = 0;
  let globalSteps = 0;
  const globalRules = new Set<string>();
  let deviation = 0;
  for (let s = 0; s < certificate.steps.length; s++) {
    const step = certificate.steps[s]!;
    if (s === opts.snapshotBefore) {
      snapshot = circuit(width, original.numClbits, ops, original.metadata);
      atSnapshot = deviation;
    }
    if (step.rule === REORDER_RULE) {
      const why = reorderProblem(ops, step);
      if (why) return { ok: false, reason: `step ${s} (${step.rule}): ${why}`, stepIndex: s };
      ops = step.order!.map((i) => ops[i]!);
      localSteps++;
      continue;
    }
    if (step.order !== undefined) return { ok: false, reason: `step ${s} (${step.rule}): only a reorder step may carry an order`, stepIndex: s };
    if (step.rule === WIDEN_RULE) {
      const why = widenProblem(step, width);
      if (why) return { ok: false, reason: `step ${s} (${step.rule}): ${why}`, stepIndex: s };
      width = step.numQubits!;
      localSteps++;
      continue;
    }
    if (step.numQubits !== undefined) return { ok: false, reason: `step ${s} (${step.rule}): only a widen step may carry numQubits`, stepIndex: s };
    const problem = checkStep(ops, step, width);
    if (typeof problem === 'string') return { ok: false, reason: `step ${s} (${step.rule}): ${problem}`, stepIndex: s };
    deviation += problem;
    // each step is within the budget alone; together they must be too, or the certificate proves nothing
    // (negated, so that a NaN deviation fails too)
    if (!(deviation <= CERTIFICATE_BUDGET)) {
      return { ok: false, reason: `step ${s} (${step.rule}): the steps' numeric deviations add up to ${deviation.toExponential(3)}, above the certificate budget ${CERTIFICATE_BUDGET}`, stepIndex: s };
    }
    ops = step.inPlace ? rewriteInPlace(ops, step.positions, step.inPlace) : splice(ops, step);
    if (isGlobalRule(step.rule)) {
      globalSteps++;
      globalRules.add(step.rule);
    } else localSteps++;
  }
  const output = circuit(width, original.numClbits, ops, original.metadata);
  if (claimed) {
    if (claimed.numQubits !== width || claimed.numClbits !== original.numClbits) {
      return { ok: false, reason: 'the claimed output has other registers than the input' };
    }
    if (claimed.ops.length !== ops.length || claimed.ops.some((o, i) => !sameOp(o, ops[i]!))) {
      return { ok: false, reason: 'replaying the certificate does not reproduce the claimed output' };
    }
  }
  return { ok: true, output, localSteps, globalSteps, globalRules: [...globalRules], deviation, deviationAfterSnapshot: snapshot ? deviation - atSnapshot : 0, ...(snapshot ? { snapshot } : {}) };
}
