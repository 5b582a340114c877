/**
 * The stabilizer method: one reference sample from the tableau (tableau.ts), then every shot as the
 * reference times a Pauli frame (frames.ts), 32 shots per word. Exact probabilities (noise-free
 * circuits whose measurements are terminal: the outcomes are uniform over an affine space, found by
 * branching the tableau at each random measurement) and exact Pauli expectation values on the state
 * before the terminal measurements. A conditioned gate that is not a Pauli cannot ride on frames:
 * such circuits run shot by shot on the tableau (correct, slower; the answer says so).
 */
import { conditionBit, type Circuit, type Condition } from '../../circuits/ir.js';
import { checkInteger, deadlineCheck, DEFAULT_TIME_BUDGET_MS, MAX_SHOTS } from '../limits.js';
import type { NoiseModel } from '../noise.js';
import type { Expectation, PauliTerm } from '../observables.js';
import { randomSeed, SeededRng } from '../rng.js';
import type { SimulationResult } from '../simulate.js';
import { P_CX, P_CZ, P_H, P_S, P_SDG, P_SWAP, P_X, P_Y, P_Z, type Prim } from './clifford-gates.js';
import { ColumnTableau } from './column-tableau.js';
import { Frames } from './frames.js';
import { compileStabilizer, type PauliChannel, type StabInstr, type StabProgram } from './stabilizer-program.js';
import { Tableau } from './tableau.js';

/** Largest circuit the stabilizer method takes: the tableau is 2n rows of 2n bits (16 384 qubits: 128 MiB). */
export const STABILIZER_MAX_QUBITS = 16_384;
const MAX_EXACT_CLBITS = 20;

export interface StabilizerOptions {
  readonly shots: number;
  readonly seed?: number;
  readonly noise?: NoiseModel;
  readonly observables?: readonly PauliTerm[];
  readonly maxProbabilityEntries?: number;
  readonly timeBudgetMs?: number;
  readonly onProgress?: (fraction: number) => void;
}

export function applyPrim(t: Tableau, p: Prim): void {
  switch (p.g) {
    case P_H:
      return t.h(p.a);
    case P_S:
      return t.s(p.a);
    case P_SDG:
      return t.sdg(p.a);
    case P_X:
      return t.xGate(p.a);
    case P_Y:
      return t.yGate(p.a);
    case P_Z:
      return t.zGate(p.a);
    case P_CX:
      return t.cx(p.a, p.b);
    case P_CZ:
      return t.cz(p.a, p.b);
    case P_SWAP:
      return t.swap(p.a, p.b);
  }
}

export function conditionHolds(bits: Uint8Array, cond: Condition): boolean {
  return cond.clbits.every((cb, t) => bits[cb] === conditionBit(cond, t));
}

/** ⟨H⟩ on the tableau's state. */
function expectationOf(t: Tableau, observables: readonly PauliTerm[]): Expectation {
  const terms = observables.map((term) => {
    const xs: number[] = [];
    const zs: number[] = [];
    const n = term.pauli.length;
    for (let k = 0; k < n; k++) {
      const ch = term.pauli[n - 1 - k];
      if (ch === 'X' || ch === 'Y') xs.push(k);
      if (ch === 'Z' || ch === 'Y') zs.push(k);
    }
    return term.coeff * t.expectation(xs, zs);
  });
  return { value: terms.reduce((a, b) => a + b, 0), terms, kind: 'exact' };
}

/** Pauli errors of a channel drawn once, applied to a tableau (the shot-by-shot mode). */
function noiseOnTableau(t: Tableau, ch: PauliChannel, rng: SeededRng): void {
  const one = (kind: number, q: number): void => {
    if (kind === 1) t.xGate(q);
    else if (kind === 2) t.zGate(q);
    else if (kind === 3) t.yGate(q);
  };
  if (ch.b < 0) {
    const u = rng.next();
    if (u < ch.px) one(1, ch.a);
    else if (u < ch.px + ch.py) one(3, ch.a);
    else if (u < ch.px + ch.py + ch.pz) one(2, ch.a);
    return;
  }
  if (rng.next() < ch.p2) {
    const v = 1 + rng.int(15);
    one((v & 1) | (v & 2), ch.a);
    one(((v >>> 2) & 1) | ((v >>> 2) & 2), ch.b);
  }
}

/** One shot on a fresh tableau: measured bits (reported, after readout error). */
function runShot(prog: StabProgram, rng: SeededRng, withNoise: boolean): Uint8Array {
  const t = new Tableau(prog.n);
  const bits = new Uint8Array(prog.numClbits);
  const choose = (): number => rng.nextU32() & 1;
  for (const s of prog.instrs) {
    if (s.k === 'gate') applyPrim(t, s.p);
    else if (s.k === 'noise') {
      if (withNoise) noiseOnTableau(t, s.ch, rng);
    } else if (s.k === 'measure') {
      let b = t.measure(s.q, choose).bit;
      if (withNoise && s.ro !== null && rng.next() < s.ro[b]!) b ^= 1;
      bits[s.c] = b;
    } else if (s.k === 'reset') t.reset(s.q, choose);
    else if (conditionHolds(bits, s.cond)) {
      for (const p of s.prims) applyPrim(t, p);
      if (withNoise) for (const ch of s.noise) noiseOnTableau(t, ch, rng);
    }
  }
  return bits;
}

const keyOf = (bits: Uint8Array): string => {
  let s = '';
  for (let c = bits.length - 1; c >= 0; c--) s += bits[c] === 1 ? '1' : '0';
  return s;
};

/** Exact distribution of a non-branching noise-free program: branch the tableau at each random terminal measurement. */
function exactDistribution(t: Tableau, measures: readonly Extract<StabInstr, { k: 'measure' }>[], numClbits: number): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (tab: Tableau, i: number, bits: Uint8Array, p: number): void => {
    if (i === measures.length) {
      const k = keyOf(bits);
      out[k] = (out[k] ?? 0) + p;
      return;
    }
    const m = measures[i]!;
    if (tab.isDeterministic(m.q)) {
      bits[m.c] = tab.measure(m.q, () => 0).bit;
      walk(tab, i + 1, bits, p);
      return;
    }
    for (const b of [0, 1]) {
      const copy = b === 0 ? tab.clone() : tab;
      bits[m.c] = copy.measure(m.q, () => b).bit;
      walk(copy, i + 1, bits.slice(), p / 2);
    }
  };
  walk(t, 0, new Uint8Array(numClbits), 1);
  const sorted: Record<string, number> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k]!;
  return sorted;
}

export function simulateStabilizer(circuit: Circuit, options: StabilizerOptions): SimulationResult {
  const t0 = performance.now();
  const shots = checkInteger('shots', options.shots, 0, MAX_SHOTS);
  const seed = options.seed === undefined ? randomSeed() : checkInteger('seed', options.seed, 0, Number.MAX_SAFE_INTEGER);
  const check = deadlineCheck(options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS, t0);
  const prog = compileStabilizer(circuit, options.noise);
  const rng = new SeededRng(seed);
  const notes: string[] = [];
  if (prog.twirled) notes.push('amplitude damping approximated by its Pauli twirl (the stabilizer method carries Pauli noise only)');
  const t1 = performance.now();
  const maxEntries = options.maxProbabilityEntries ?? 65536;

  // Reference sample (noise-free). A non-branching program runs its gates first: its measurements are terminal.
  const tab = new Tableau(prog.n);
  const refBits = new Uint8Array(prog.numClbits);
  const measureRefs: number[] = [];
  const order = prog.branching ? prog.instrs : [...prog.instrs.filter((s) => s.k !== 'measure'), ...prog.instrs.filter((s) => s.k === 'measure')];
  let expectation: Expectation | undefined;
  let probabilities: Record<string, number> | undefined;
  const wantExp = options.observables !== undefined && options.observables.length > 0;
  const choose = (): number => rng.nextU32() & 1;
  let done = 0;
  let col: ColumnTableau | undefined;
  for (const s of order) {
    if ((++done & 1023) === 0) {
      check();
      options.onProgress?.((0.5 * done) / order.length);
    }
    if (s.k === 'gate') applyPrim(tab, s.p);
    else if (s.k === 'measure') {
      if (!prog.branching && measureRefs.length === 0) {
        if (wantExp) expectation = expectationOf(tab, options.observables);
        if (!prog.noisy && prog.numClbits <= MAX_EXACT_CLBITS) {
          const measures = order.filter((m): m is Extract<StabInstr, { k: 'measure' }> => m.k === 'measure');
          const count = measures.filter((m, i) => measures.findIndex((o) => o.q === m.q) === i).length;
          // Count the random ones on a copy first: 2^random outcomes must fit.
          const probe = tab.clone();
          let random = 0;
          for (const m of measures) if (probe.measure(m.q, () => 0).random) random++;
          if (random <= Math.min(count, Math.log2(maxEntries))) probabilities = exactDistribution(tab.clone(), measures, prog.numClbits);
        }
      }
      // Terminal measurements (a non-branching program): collapse column-major (column-tableau.ts).
      if (!prog.branching) col ??= new ColumnTableau(tab);
      const r = col === undefined ? tab.measure(s.q, choose) : col.measure(s.q, choose);
      refBits[s.c] = r.bit;
      measureRefs.push(r.bit);
    } else if (s.k === 'reset') tab.reset(s.q, choose);
    else if (s.k === 'if') {
      if (conditionHolds(refBits, s.cond)) for (const p of s.prims) applyPrim(tab, p);
    }
  }
  if (!prog.branching && measureRefs.length === 0 && wantExp) expectation = expectationOf(tab, options.observables);
  if (wantExp && expectation === undefined) notes.push('expectation omitted: the run has conditioned gates, mid-circuit measurement or reset, so there is no single final state');
  const t2 = performance.now();

  const counts = new Map<string, number>();
  if (prog.perShot) {
    notes.push('a conditioned gate is not a Pauli, so shots ran one by one on the tableau (no Pauli frames)');
    for (let i = 0; i < shots; i++) {
      if ((i & 63) === 0) check();
      const k = keyOf(runShot(prog, rng, true));
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  } else if (shots > 0) sampleFrames(prog, order, measureRefs, shots, rng, counts, check, options.onProgress);

  const sortedCounts: Record<string, number> = {};
  for (const k of [...counts.keys()].sort()) sortedCounts[k] = counts.get(k)!;
  let kind: SimulationResult['probabilitiesKind'] = 'omitted';
  if (probabilities !== undefined) kind = 'exact';
  else if (shots > 0 && prog.numClbits <= MAX_EXACT_CLBITS) {
    probabilities = {};
    for (const [k, v] of Object.entries(sortedCounts)) probabilities[k] = v / shots;
    kind = 'estimated';
  } else notes.push(`probabilities omitted: ${prog.numClbits > MAX_EXACT_CLBITS ? `more than ${MAX_EXACT_CLBITS} measured clbits` : `more than ${maxEntries} outcomes`}`);
  const t3 = performance.now();
  return {
    numQubits: prog.n,
    numClbits: prog.numClbits,
    shots,
    seed,
    counts: sortedCounts,
    probabilitiesKind: kind,
    notes,
    timing: { compileMs: t1 - t0, runMs: t2 - t1, sampleMs: t3 - t2, totalMs: t3 - t0 },
    stats: { gates: prog.gates, blocks: 0, trajectories: prog.perShot ? shots : 1, stateCopies: 0, blockQubits: 0 },
    ...(probabilities === undefined ? {} : { probabilities }),
    ...(expectation === undefined ? {} : { expectation }),
  };
}

/** All shots at once on Pauli frames; the counts of the final clbit strings. */
function sampleFrames(
  prog: StabProgram,
  order: readonly StabInstr[],
  refs: readonly number[],
  shots: number,
  rng: SeededRng,
  counts: Map<string, number>,
  check: () => void,
  onProgress: ((f: number) => void) | undefined,
): void {
  const f = new Frames(prog.n, shots, rng);
  const s = f.s;
  const bits = new Uint32Array(prog.numClbits * s);
  const refBits = new Uint8Array(prog.numClbits);
  const mask = new Uint32Array(s);
  let m = 0;
  let done = 0;
  for (const ins of order) {
    if ((++done & 1023) === 0) {
      check();
      onProgress?.(0.5 + (0.5 * done) / order.length);
    }
    switch (ins.k) {
      case 'gate':
        f.gate(ins.p);
        break;
      case 'noise':
        f.noise(ins.ch);
        break;
      case 'measure': {
        const ref = refs[m++]!;
        refBits[ins.c] = ref;
        f.measure(ins.q, ref, ins.ro, bits, ins.c * s);
        break;
      }
      case 'reset':
        f.reset(ins.q);
        break;
      case 'if': {
        // Shots where the condition holds; frames flip where that differs from the reference run.
        mask.fill(0xffffffff);
        ins.cond.clbits.forEach((cb, t) => {
          const want = conditionBit(ins.cond, t);
          for (let j = 0; j < s; j++) mask[j]! &= want === 1 ? bits[cb * s + j]! : ~bits[cb * s + j]!;
        });
        const refTrue = conditionHolds(refBits, ins.cond);
        const diff = refTrue ? mask.map((v) => ~v >>> 0) : mask;
        for (const p of ins.prims) f.flip(p, diff);
        for (const ch of ins.noise) f.noise(ch, mask);
        break;
      }
    }
  }
  // Bitstrings: clbit 0 rightmost.
  // One latin1 decode per shot of an ASCII buffer: far cheaper than joining nc one-character strings.
  const nc = prog.numClbits;
  const chars = Buffer.alloc(nc, 48);
  for (let i = 0; i < shots; i++) {
    const w = i >>> 5;
    const sh = i & 31;
    for (let c = 0; c < nc; c++) chars[nc - 1 - c] = 48 | ((bits[c * s + w]! >>> sh) & 1);
    const k = chars.toString('latin1', 0, nc);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
}
