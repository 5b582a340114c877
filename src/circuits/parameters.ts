/**
 * Binding a parameterized circuit: `compileBinder` walks the circuit once, compiling every
 * symbolic parameter into a closure over a Float64Array of values (in `parameters` order);
 * binding a point then only evaluates those closures and replaces the symbolic gates. Values
 * come as `parameter_values: [{theta: 0.1}, …]`; `checkBindings` names every unbound or
 * unknown parameter with a stable code and a JSON path.
 */
import { conditioned, gate, type Circuit, type Condition, type GateOp, type Operation } from './ir.js';
import { compileParamExpr, exprNames, type CompiledExpr } from './param-expr.js';

/** Points in one sweep at most (a job's result holds one entry per point). */
export const MAX_SWEEP_POINTS = 1000;
/** Problems listed in one refusal at most; a last TOO_MANY_PROBLEMS detail says how many there were. */
export const MAX_BINDING_PROBLEMS = 100;

export interface BindingProblem {
  readonly path: string;
  readonly code: 'PARAMETER_UNBOUND' | 'PARAMETER_UNKNOWN' | 'PARAMETER_VALUE_INVALID' | 'PARAMETERS_NOT_DECLARED' | 'TOO_MANY_POINTS' | 'TOO_MANY_PROBLEMS';
  readonly message: string;
}

/** A gate parameter that is not finite at some binding: the gate (op index), which parameter, the names its expression uses. */
export interface NonFiniteSlot {
  readonly opIndex: number;
  readonly paramIndex: number;
  readonly names: readonly string[];
}

interface Slot {
  readonly opIndex: number;
  readonly op: GateOp;
  /** The condition of a conditioned gate (kept when bound). */
  readonly condition?: Condition;
  readonly evals: readonly (CompiledExpr | null)[];
  readonly names: readonly (readonly string[])[];
}

export interface Binder {
  readonly parameters: readonly string[];
  /** Symbolic gates (the only ops rebuilt per point). */
  readonly symbolicGates: number;
  /** The circuit at one point; non-finite results (a division by zero) are reported by index of the gate. */
  bind(values: Float64Array): Circuit;
  /** Every gate parameter that is not finite at this point (empty: `bind` succeeds). */
  nonFinite(values: Float64Array): NonFiniteSlot[];
}

export function isParameterized(c: Circuit): boolean {
  return c.parameters !== undefined && c.parameters.length > 0;
}

export function compileBinder(c: Circuit): Binder {
  const parameters = c.parameters ?? [];
  const index = new Map(parameters.map((p, i) => [p, i] as const));
  const slots: Slot[] = [];
  c.ops.forEach((o, i) => {
    const op = o.kind === 'conditioned' ? o.gate : o;
    const condition = o.kind === 'conditioned' ? { condition: o.condition } : {};
    if (op.kind === 'gate' && op.exprs !== undefined)
      slots.push({
        opIndex: i,
        op,
        ...condition,
        evals: op.exprs.map((e) => (e === null ? null : compileParamExpr(e, index))),
        names: op.exprs.map((e) => (e === null ? [] : [...exprNames(e)])),
      });
  });
  const base = c.ops;
  return {
    parameters,
    symbolicGates: slots.length,
    nonFinite(values: Float64Array): NonFiniteSlot[] {
      const out: NonFiniteSlot[] = [];
      for (const s of slots)
        s.evals.forEach((f, j) => {
          if (f !== null && !Number.isFinite(f(values))) out.push({ opIndex: s.opIndex, paramIndex: j, names: s.names[j] ?? [] });
        });
      return out;
    },
    bind(values: Float64Array): Circuit {
      const ops: Operation[] = base.slice();
      for (const s of slots) {
        const params = s.op.params.map((p, j) => {
          const f = s.evals[j];
          const v = f === null || f === undefined ? p : f(values);
          if (!Number.isFinite(v)) throw new NonFiniteBinding(s.opIndex, j);
          return v === 0 ? 0 : v;
        });
        const bound = gate(s.op.name, s.op.qubits, params);
        ops[s.opIndex] = s.condition === undefined ? bound : conditioned(bound, s.condition);
      }
      // A bound circuit has no parameters; its registers stay.
      return Object.freeze({
        numQubits: c.numQubits,
        numClbits: c.numClbits,
        ops: Object.freeze(ops),
        metadata: c.metadata,
        ...(c.registers === undefined ? {} : { registers: c.registers }),
        ...(c.quantumRegisters === undefined ? {} : { quantumRegisters: c.quantumRegisters }),
      });
    },
  };
}

/** A binding whose value makes a gate parameter NaN or infinite (e.g. `1/theta` at 0). */
export class NonFiniteBinding extends Error {
  constructor(
    readonly opIndex: number,
    readonly paramIndex: number,
  ) {
    super(`gate ${opIndex} parameter ${paramIndex} is not finite at this binding`);
  }
}

/**
 * The bindings as value arrays in `parameters` order, or every problem: a declared parameter a
 * point leaves unbound, a name the circuit does not declare, a value that is not a finite number.
 * No `parameter_values` on a parameterized circuit is reported at `pathPrefix` itself.
 */
export function checkBindings(
  parameters: readonly string[],
  given: readonly Readonly<Record<string, unknown>>[] | undefined,
  pathPrefix = '/parameter_values',
): { ok: true; points: Float64Array[] } | { ok: false; problems: BindingProblem[]; points?: Float64Array[]; badPoints?: ReadonlySet<number> } {
  const problems: BindingProblem[] = [];
  if (given === undefined) {
    if (parameters.length === 0) return { ok: true, points: [new Float64Array(0)] };
    return { ok: false, problems: [{ path: pathPrefix, code: 'PARAMETER_UNBOUND', message: `the circuit declares parameters ${parameters.join(', ')}: give their values in parameter_values` }] };
  }
  if (parameters.length === 0) {
    return { ok: false, problems: [{ path: pathPrefix, code: 'PARAMETERS_NOT_DECLARED', message: 'the circuit declares no parameters, so parameter_values must be absent' }] };
  }
  if (given.length === 0 || given.length > MAX_SWEEP_POINTS) {
    return { ok: false, problems: [{ path: pathPrefix, code: 'TOO_MANY_POINTS', message: `a sweep has 1 to ${MAX_SWEEP_POINTS} points, got ${given.length}` }] };
  }
  const index = new Map(parameters.map((p, i) => [p, i] as const));
  const points: Float64Array[] = [];
  const badPoints = new Set<number>();
  given.forEach((point, k) => {
    const before = problems.length;
    const vs = new Float64Array(parameters.length).fill(Number.NaN);
    for (const [name, v] of Object.entries(point)) {
      const i = index.get(name);
      const path = `${pathPrefix}/${k}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (i === undefined) problems.push({ path, code: 'PARAMETER_UNKNOWN', message: `'${name.slice(0, 64)}' is not a parameter of the circuit (it declares ${parameters.join(', ')})` });
      else if (typeof v !== 'number' || !Number.isFinite(v)) problems.push({ path, code: 'PARAMETER_VALUE_INVALID', message: `the value of '${name}' must be a finite number` });
      else vs[i] = v;
    }
    parameters.forEach((p, i) => {
      if (Number.isNaN(vs[i]!) && !(p in point)) problems.push({ path: `${pathPrefix}/${k}`, code: 'PARAMETER_UNBOUND', message: `point ${k} gives no value for '${p}'` });
    });
    if (problems.length > before) badPoints.add(k);
    points.push(vs);
  });
  // Every problem of every point (the caller bounds the list: boundProblems).
  return problems.length > 0 ? { ok: false, problems, points, badPoints } : { ok: true, points };
}

/** At most MAX_BINDING_PROBLEMS problems, then one TOO_MANY_PROBLEMS detail at `path` saying how many there were. */
export function boundProblems(problems: readonly BindingProblem[], path = '/parameter_values'): BindingProblem[] {
  if (problems.length <= MAX_BINDING_PROBLEMS) return [...problems];
  return [...problems.slice(0, MAX_BINDING_PROBLEMS), { path, code: 'TOO_MANY_PROBLEMS', message: `${problems.length} problems: the first ${MAX_BINDING_PROBLEMS} are listed` }];
}
