import type { Circuit } from '../circuits/ir.js';
import { fail, type ErrorDetail } from '../errors/app-error.js';
import { measureCircuit, type CouplingDeps, type CouplingMode, type CouplingSettings, type Fallback, type MeasureOutcome } from './analyze-coupling.js';
import { COUPLING_ERRORS } from './error-codes.js';
import { tidy } from './measured.js';
import { MAX_PAIR_PROBLEMS, resolvePairs } from './pairs.js';
import { qualitativeCoupling, type QualitativePair } from './qualitative.js';
import type { Pair } from './reduced-states.js';

/**
 * What a transformation (optimization, routing) does to coupling: each pair of `before`'s
 * qubits is compared with the pair of `after`'s qubits it maps to.
 *
 * Basis: `measured` when both circuits were measured, else `qualitative` (light cones).
 * Pair status:
 *  - measured: coupled ⇔ mutual information > tolerance. Coupled on both sides →
 *    `preserved` if |Δconcurrence| and |Δmutual information| ≤ tolerance, else `changed`;
 *    only before → `lost`; only after → `gained`; neither → `uncoupled`.
 *  - qualitative: coupled ⇔ light cones intersect; the same statuses without `changed`.
 * `preserved` overall: no pair changed, gained or lost, and (measured) every qubit's
 * entropy within tolerance.
 */

export type PairStatus = 'preserved' | 'changed' | 'gained' | 'lost' | 'uncoupled';

export interface Delta {
  readonly before: number;
  readonly after: number;
  readonly delta: number;
}

export interface ComparedPair {
  readonly qubits: Pair;
  readonly after_qubits: Pair;
  readonly status: PairStatus;
  readonly qualitative: { readonly before: QualitativeSide; readonly after: QualitativeSide };
  readonly measured?: { readonly concurrence: Delta; readonly mutual_information_bits: Delta };
}

interface QualitativeSide {
  readonly may_be_entangled: boolean;
  readonly score: number;
}

export interface SideSummary {
  readonly num_qubits: number;
  readonly mode_used: 'qualitative' | 'measured';
  readonly fallback?: Fallback;
}

export interface CouplingComparison {
  readonly mode_requested: CouplingMode;
  readonly basis: 'measured' | 'qualitative';
  readonly tolerance: number;
  readonly preserved: boolean;
  /** qubit_map[q] = the qubit of `after` holding qubit q of `before` at the end. */
  readonly qubit_map: readonly number[];
  readonly before: SideSummary;
  readonly after: SideSummary;
  readonly summary: Readonly<Record<PairStatus, number>> & { readonly pairs: number };
  readonly entropies?: readonly { readonly qubit: number; readonly after_qubit: number; readonly before: number; readonly after: number; readonly delta: number }[];
  readonly pairs: readonly ComparedPair[];
}

export interface CompareRequest {
  readonly mode: CouplingMode;
  readonly pairs?: readonly (readonly number[])[] | undefined;
  readonly qubitMap?: readonly number[] | undefined;
  readonly tolerance: number;
}

export const DEFAULT_COMPARE_TOLERANCE = 1e-6;

/** The effective map, or 400 COUPLING_QUBIT_MAP_INVALID listing every problem. */
export function resolveQubitMap(map: readonly number[] | undefined, before: number, after: number, path = '/qubit_map'): number[] {
  if (map === undefined) {
    if (after < before) {
      throw fail(COUPLING_ERRORS.COUPLING_QUBIT_MAP_INVALID, `The after circuit has ${after} qubits, fewer than the ${before} of before; give qubit_map.`, [
        { path, code: 'REQUIRED', message: `Without qubit_map, qubit q of before is compared with qubit q of after, which needs at least ${before} qubits in after.` },
      ]);
    }
    return Array.from({ length: before }, (_, q) => q);
  }
  const problems: ErrorDetail[] = [];
  if (map.length !== before) problems.push({ path, code: 'WRONG_LENGTH', message: `qubit_map needs one entry per qubit of before (${before}); got ${map.length}.` });
  const firstAt = new Map<number, number>();
  for (const [q, t] of map.entries()) {
    if (problems.length >= MAX_PAIR_PROBLEMS) {
      problems.push({ path, code: 'TOO_MANY_PROBLEMS', message: `more than ${MAX_PAIR_PROBLEMS} problems: the first ones are reported, the rest were not checked` });
      break;
    }
    if (!Number.isInteger(t) || t < 0 || t >= after) {
      problems.push({ path: `${path}/${q}`, code: 'QUBIT_OUT_OF_RANGE', message: `Qubit ${t} is not in the after circuit (qubits 0..${after - 1}).` });
      continue;
    }
    const seen = firstAt.get(t);
    if (seen !== undefined) problems.push({ path: `${path}/${q}`, code: 'DUPLICATE_QUBIT', message: `Qubits ${seen} and ${q} of before both map to qubit ${t} of after.` });
    else firstAt.set(t, q);
  }
  if (problems.length > 0) throw fail(COUPLING_ERRORS.COUPLING_QUBIT_MAP_INVALID, `qubit_map is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}).`, problems);
  return [...map];
}

function side(c: Circuit, outcome: MeasureOutcome | undefined, requested: CouplingMode): SideSummary {
  if (outcome === undefined) return { num_qubits: c.numQubits, mode_used: 'qualitative' };
  if (outcome.ok) return { num_qubits: c.numQubits, mode_used: 'measured' };
  return { num_qubits: c.numQubits, mode_used: 'qualitative', fallback: { requested: requested === 'auto' ? 'auto' : 'measured', reason_code: outcome.reason_code, reason: outcome.reason } };
}

const delta = (before: number, after: number): Delta => ({ before, after, delta: tidy(after - before, -2, 2) });

export async function compareCoupling(before: Circuit, after: Circuit, req: CompareRequest, settings: CouplingSettings, deps: CouplingDeps): Promise<CouplingComparison> {
  const map = resolveQubitMap(req.qubitMap, before.numQubits, after.numQubits);
  const pairs = resolvePairs(req.pairs, before.numQubits);
  const mapped: Pair[] = pairs.map(([a, b]) => [map[a]!, map[b]!]);
  const tol = req.tolerance;

  const qb = qualitativeCoupling(before, pairs);
  const qa = qualitativeCoupling(after, mapped);
  const mb = req.mode === 'qualitative' ? undefined : await measureCircuit(before, pairs, settings, deps);
  const ma = req.mode === 'qualitative' ? undefined : await measureCircuit(after, mapped, settings, deps);
  const both = mb?.ok === true && ma?.ok === true ? { b: mb.measured, a: ma.measured } : undefined;

  const summary: Record<PairStatus, number> = { preserved: 0, changed: 0, gained: 0, lost: 0, uncoupled: 0 };
  const out: ComparedPair[] = pairs.map((pair, k) => {
    const pb: QualitativePair = qb.pairs[k]!;
    const pa: QualitativePair = qa.pairs[k]!;
    const qualitative = {
      before: { may_be_entangled: pb.may_be_entangled, score: pb.score },
      after: { may_be_entangled: pa.may_be_entangled, score: pa.score },
    };
    let status: PairStatus;
    let measured: ComparedPair['measured'];
    if (both !== undefined) {
      const xb = both.b.pairs[k]!;
      const xa = both.a.pairs[k]!;
      measured = {
        concurrence: delta(xb.concurrence, xa.concurrence),
        mutual_information_bits: delta(xb.mutual_information_bits, xa.mutual_information_bits),
      };
      const cb = xb.mutual_information_bits > tol;
      const ca = xa.mutual_information_bits > tol;
      const within = Math.abs(measured.concurrence.delta) <= tol && Math.abs(measured.mutual_information_bits.delta) <= tol;
      status = cb && ca ? (within ? 'preserved' : 'changed') : cb ? 'lost' : ca ? 'gained' : 'uncoupled';
    } else {
      status = pb.may_be_entangled && pa.may_be_entangled ? 'preserved' : pb.may_be_entangled ? 'lost' : pa.may_be_entangled ? 'gained' : 'uncoupled';
    }
    summary[status] += 1;
    const row: ComparedPair = { qubits: pair, after_qubits: mapped[k]!, status, qualitative };
    return measured === undefined ? row : { ...row, measured };
  });

  const entropies =
    both === undefined
      ? undefined
      : map.map((t, q) => {
          const d = delta(both.b.entropies_bits[q]!, both.a.entropies_bits[t]!);
          return { qubit: q, after_qubit: t, ...d };
        });
  const preserved = summary.changed === 0 && summary.gained === 0 && summary.lost === 0 && (entropies?.every((e) => Math.abs(e.delta) <= tol) ?? true);

  const result: CouplingComparison = {
    mode_requested: req.mode,
    basis: both === undefined ? 'qualitative' : 'measured',
    tolerance: tol,
    preserved,
    qubit_map: map,
    before: side(before, mb, req.mode),
    after: side(after, ma, req.mode),
    summary: { pairs: pairs.length, ...summary },
    pairs: out,
  };
  return entropies === undefined ? result : { ...result, entropies };
}
